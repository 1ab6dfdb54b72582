using System.CommandLine;
using System.Numerics;

namespace ConcurrencySandbox.LoadTests.Experiments;

/// <summary>The parsed command line as experiments read it: typed values, checked the same way for every option.</summary>
internal sealed class OptionValues(ParseResult parse)
{
    public T Get<T>(Option<T> option) => parse.GetValue(option)!;

    /// <summary>The option's value if it is above zero; a <see cref="UsageException"/> naming the option otherwise.</summary>
    public T Positive<T>(Option<T> option) where T : INumber<T>
    {
        var value = Get(option);
        return T.IsPositive(value) && !T.IsZero(value) ? value : throw new UsageException($"{option.Name} must be positive, got {value}");
    }

    /// <summary>The option's value if it lies in [<paramref name="min"/>, <paramref name="max"/>]; a <see cref="UsageException"/> naming the option and the range otherwise.</summary>
    public T InRange<T>(Option<T> option, T min, T max) where T : INumber<T> => Checked(option.Name, Get(option), min, max);

    /// <summary>As <see cref="InRange{T}"/> for an option without a default: null when it was not given.</summary>
    public T? InRangeIfGiven<T>(Option<T?> option, T min, T max) where T : struct, INumber<T> =>
        parse.GetValue(option) is { } value ? Checked(option.Name, value, min, max) : null;

    private static T Checked<T>(string name, T value, T min, T max) where T : INumber<T> =>
        value >= min && value <= max ? value : throw new UsageException(FormattableString.Invariant($"{name} must be from {min} to {max}, got {value}"));

    /// <summary>A comma-separated option as its trimmed, non-empty items.</summary>
    public IReadOnlyList<string> List(Option<string> option) =>
        [.. Get(option).Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)];
}
