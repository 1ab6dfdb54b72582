using System.Text.Json;
using System.Text.RegularExpressions;

namespace ConcurrencySandbox.Deploy.Tests.Support;

/// <summary>One instruction of a Dockerfile, continuation lines joined.</summary>
internal sealed record Instruction(string Keyword, string Arguments)
{
    /// <summary>The arguments of the exec (JSON array) form, e.g. ENTRYPOINT ["dotnet", "x.dll"].</summary>
    public IReadOnlyList<string> ExecForm() => JsonSerializer.Deserialize<string[]>(Arguments) ?? [];

    /// <summary>The words of the shell form, without --flags.</summary>
    public IReadOnlyList<string> Words() =>
        Arguments.Split(' ', StringSplitOptions.RemoveEmptyEntries).Where(word => !word.StartsWith("--", StringComparison.Ordinal)).ToList();

    public string? Flag(string name) =>
        Arguments.Split(' ', StringSplitOptions.RemoveEmptyEntries)
            .FirstOrDefault(word => word.StartsWith($"--{name}=", StringComparison.Ordinal))?[(name.Length + 3)..];
}

/// <summary>A build stage: FROM &lt;image or stage&gt; AS &lt;name&gt; and its instructions.</summary>
internal sealed record Stage(string Name, string From, IReadOnlyList<Instruction> Instructions)
{
    public IEnumerable<Instruction> All(string keyword) =>
        Instructions.Where(instruction => instruction.Keyword == keyword);
}

/// <summary>The top-level Dockerfile parsed into stages, enough to check its structure.</summary>
internal sealed class Dockerfile
{
    private Dockerfile(IReadOnlyDictionary<string, string> globalArguments, IReadOnlyList<Stage> stages)
    {
        GlobalArguments = globalArguments;
        Stages = stages;
    }

    /// <summary>The ARGs declared before the first FROM, with their defaults (the only ARGs a FROM may use).</summary>
    public IReadOnlyDictionary<string, string> GlobalArguments { get; }

    public IReadOnlyList<Stage> Stages { get; }

    public Stage this[string name] =>
        Stages.SingleOrDefault(stage => stage.Name == name) ?? throw new KeyNotFoundException($"No stage named '{name}'.");

    public static Dockerfile Load() => Parse(Repository.Read("Dockerfile"));

    public static Dockerfile Parse(string text)
    {
        var stages = new List<Stage>();
        var globalArguments = new Dictionary<string, string>();
        List<Instruction>? current = null;
        foreach (var instruction in Instructions(text))
        {
            if (instruction.Keyword == "FROM")
            {
                var words = instruction.Words();
                current = [];
                var name = words.Count == 3 && words[1].Equals("AS", StringComparison.OrdinalIgnoreCase) ? words[2] : $"#{stages.Count}";
                var from = Regex.Replace(words[0], @"\$\{(\w+)\}|\$(\w+)", match =>
                    globalArguments.GetValueOrDefault(match.Groups[1].Success ? match.Groups[1].Value : match.Groups[2].Value)
                    ?? throw new FormatException($"FROM {words[0]}: {match.Value} is not an ARG with a default before the first FROM."));
                stages.Add(new Stage(name, from, current));
            }
            else if (current is null && instruction.Keyword == "ARG")
            {
                var (argument, value) = (instruction.Arguments.Split('=', 2) is [var key, var defaultValue] ? (key, defaultValue) : (instruction.Arguments, ""));
                globalArguments[argument] = value;
            }
            else
            {
                (current ?? throw new FormatException($"{instruction.Keyword} before the first FROM.")).Add(instruction);
            }
        }

        return new Dockerfile(globalArguments, stages);
    }

    /// <summary>The stage followed by the stages it is built FROM, up to the one built from an image.</summary>
    public IEnumerable<Stage> Lineage(Stage stage)
    {
        for (Stage? next = stage; next is not null; next = Stages.SingleOrDefault(s => s.Name == next.From))
        {
            yield return next;
        }
    }

    /// <summary>The image at the root of a stage's lineage.</summary>
    public string BaseImage(Stage stage) => Lineage(stage).Last().From;

    /// <summary>The last USER a stage sets or inherits, or null (root) when none does.</summary>
    public string? EffectiveUser(Stage stage) =>
        Lineage(stage).Select(s => s.All("USER").LastOrDefault()?.Arguments).FirstOrDefault(user => user is not null);

    private static IEnumerable<Instruction> Instructions(string text)
    {
        var logical = "";
        foreach (var rawLine in text.ReplaceLineEndings("\n").Split('\n'))
        {
            var line = rawLine.Trim();
            if (line.StartsWith('#') || (line.Length == 0 && logical.Length == 0))
            {
                continue;
            }

            if (line.EndsWith('\\'))
            {
                logical += line[..^1] + " ";
                continue;
            }

            logical += line;
            if (logical.Trim().Length > 0)
            {
                var match = Regex.Match(logical.Trim(), @"^(\S+)\s*(.*)$", RegexOptions.Singleline);
                yield return new Instruction(match.Groups[1].Value.ToUpperInvariant(), Regex.Replace(match.Groups[2].Value, @"\s+", " ").Trim());
            }

            logical = "";
        }
    }
}
