using System.Globalization;

namespace ConcurrencySandbox.Api.Validation;

/// <summary>
/// One query parameter: its validation, its 400 message and its Swagger documentation all come from here,
/// so the range a user reads is the range the server enforces.
/// </summary>
public abstract record QueryParameter(string Name, string Description)
{
    /// <summary>The allowed values in words, as they appear in problem details and Swagger.</summary>
    public abstract string AllowedRange { get; }

    /// <summary>The default as text, or null when the parameter is required.</summary>
    public abstract string? DefaultText { get; }
}

/// <summary>A whole number in [Min, Max]; a null default makes it required.</summary>
public sealed record IntegerParameter(string Name, long Min, long Max, long? Default, string Description)
    : QueryParameter(Name, Description)
{
    public override string AllowedRange => $"an integer from {Min.ToString(CultureInfo.InvariantCulture)} to {Max.ToString(CultureInfo.InvariantCulture)}";

    public override string? DefaultText => Default?.ToString(CultureInfo.InvariantCulture);
}

/// <summary>A number in [Min, Max]; a null default makes it required.</summary>
public sealed record NumberParameter(string Name, double Min, double Max, double? Default, string Description)
    : QueryParameter(Name, Description)
{
    public override string AllowedRange => $"a number from {Min.ToString(CultureInfo.InvariantCulture)} to {Max.ToString(CultureInfo.InvariantCulture)}";

    public override string? DefaultText => Default?.ToString(CultureInfo.InvariantCulture);
}

/// <summary>One of a fixed list of words (case-insensitive); a null default makes it required.</summary>
public sealed record ChoiceParameter(string Name, IReadOnlyList<string> Choices, string? Default, string Description)
    : QueryParameter(Name, Description)
{
    public override string AllowedRange => $"one of {string.Join(", ", Choices)}";

    public override string? DefaultText => Default;
}
