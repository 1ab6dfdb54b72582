using System.Text.Json.Serialization;

namespace ConcurrencySandbox.Contracts.Statistics;

/// <summary>Why a measurement stopped repeating (a word on the wire: the runner reads it without the API's converters).</summary>
[JsonConverter(typeof(JsonStringEnumConverter<StopReason>))]
public enum StopReason
{
    /// <summary>Every figure's 95 % interval came within the target width.</summary>
    Converged,

    /// <summary>The next repeat would have run past the time budget.</summary>
    BudgetSpent,

    /// <summary>The policy's cap on repeats was reached.</summary>
    MaximumRepeats,
}
