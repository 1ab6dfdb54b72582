namespace ConcurrencySandbox.LoadTests.Reports;

/// <summary>The command line that produced a report, written so it can be pasted to run the same thing again.</summary>
public static class RunnerCommandLine
{
    public const string Launcher = "dotnet run -c Release --project loadtests/ConcurrencySandbox.LoadTests --";

    /// <summary>This process's arguments behind the launcher (the first command-line entry is the runner's own path).</summary>
    public static string Current() => Format(Environment.GetCommandLineArgs().Skip(1));

    public static string Format(IEnumerable<string> arguments) =>
        Launcher + string.Concat(arguments.Select(a => " " + Quote(a)));

    private static string Quote(string argument) =>
        argument.Length > 0 && argument.All(c => char.IsAsciiLetterOrDigit(c) || "-_./:,=@+".Contains(c, StringComparison.Ordinal))
            ? argument
            : "'" + argument.Replace("'", "'\\''", StringComparison.Ordinal) + "'";
}
