using System.CommandLine;
using System.Numerics;

namespace ConcurrencySandbox.LoadTests.Experiments;

/// <summary>The parsed command line as experiments read it: typed values, checked the same way for every option.</summary>
public sealed class OptionValues(ParseResult parse)
{
    public T Get<T>(Option<T> option) => parse.GetValue(option)!;

    /// <summary>The option's value if it is above zero; a <see cref="UsageException"/> naming the option otherwise.</summary>
    public T Positive<T>(Option<T> option) where T : INumber<T>
    {
        var value = Get(option);
        return T.IsPositive(value) && !T.IsZero(value) ? value : throw new UsageException($"{option.Name} must be positive, got {value}");
    }

    /// <summary>A comma-separated option as its trimmed, non-empty items.</summary>
    public IReadOnlyList<string> List(Option<string> option) =>
        [.. Get(option).Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)];
}
