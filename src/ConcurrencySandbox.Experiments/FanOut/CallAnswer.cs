using ConcurrencySandbox.Contracts.FanOut;

namespace ConcurrencySandbox.Experiments.FanOut;

/// <summary>A third party's answer to one call: the outcome and, when it went wrong, why.</summary>
public readonly record struct CallAnswer(CallOutcome Outcome, string? Error)
{
    public static CallAnswer Ok { get; } = new(CallOutcome.Ok, null);

    public static CallAnswer Failed(string error) => new(CallOutcome.Failed, error);

    public static CallAnswer TimedOut(TimeSpan timeout) =>
        new(CallOutcome.TimedOut, $"no answer within {timeout.TotalMilliseconds:0} ms");
}
