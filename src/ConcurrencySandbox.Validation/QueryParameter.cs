using System.Globalization;

namespace ConcurrencySandbox.Validation;

/// <summary>
/// One declared value (a query parameter, a JSON body property or a start-up setting): its validation, its 400
/// or start-up message and its Swagger documentation all come from here, so the range a user reads is the range
/// the server enforces. Read through <see cref="QueryReader"/>, <see cref="JsonBodyReader"/> or <see cref="SettingsReader"/>.
/// </summary>
public abstract record QueryParameter(string Name, string Description)
{
    /// <summary>The message for a value outside the declaration, quoted as sent (cut at 40 characters).</summary>
    public string Rejection(string raw) => $"'{Name}' must be {AllowedRange}; got '{(raw.Length > 40 ? raw[..40] + "..." : raw)}'.";

    /// <summary>The allowed values in words, as they appear in problem details and Swagger.</summary>
    public abstract string AllowedRange { get; }

    /// <summary>The default as text, or null when the parameter is required.</summary>
    public abstract string? DefaultText { get; }

    /// <summary>
    /// The <see cref="DeclaredQuery{TSelf}"/> record member this parameter fills, when its name depends on the route
    /// (work's amount is cycles, iterations or milliseconds); null means the member of the parameter's own name.
    /// </summary>
    public string? Member { get; init; }

    /// <summary>The record member this parameter fills, matched case-insensitively.</summary>
    public string MemberName => Member ?? Name;
}

/// <summary>A whole number in [Min, Max]; a null default makes it required.</summary>
public sealed record IntegerParameter(string Name, long Min, long Max, long? Default, string Description)
    : QueryParameter(Name, Description)
{
    public override string AllowedRange => Max == long.MaxValue
        ? $"an integer of at least {Min.ToString(CultureInfo.InvariantCulture)}"
        : $"an integer from {Min.ToString(CultureInfo.InvariantCulture)} to {Max.ToString(CultureInfo.InvariantCulture)}";

    public override string? DefaultText => Default?.ToString(CultureInfo.InvariantCulture);

    public bool Allows(long value) => value >= Min && value <= Max;

    /// <summary>Parses text (a query value, a setting) and checks the range.</summary>
    public bool TryParse(string raw, out long value) =>
        long.TryParse(raw, NumberStyles.Integer, CultureInfo.InvariantCulture, out value) && Allows(value);
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
