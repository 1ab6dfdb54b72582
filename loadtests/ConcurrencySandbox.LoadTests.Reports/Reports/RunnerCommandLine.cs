namespace ConcurrencySandbox.LoadTests.Reports;

/// <summary>The command line that produced a report, written so it can be pasted to run the same thing again.</summary>
public static class RunnerCommandLine
{
    /// <summary>How the docs start the runner: what a command line made of arguments alone (<see cref="Format(IEnumerable{string})"/>) begins with.</summary>
    public const string Launcher = "dotnet run -c Release --project loadtests/ConcurrencySandbox.LoadTests --";

    /// <summary>This process's command line: what was run (<see cref="LauncherOf"/>), then its arguments (the first entry is the runner's own path).</summary>
    public static string Current()
    {
        var arguments = Environment.GetCommandLineArgs();
        return Format(LauncherOf(Environment.ProcessPath, arguments[0], Environment.CurrentDirectory), arguments.Skip(1));
    }

    public static string Format(IEnumerable<string> arguments) => Format(Launcher, arguments);

    private static string Format(string launcher, IEnumerable<string> arguments) =>
        launcher + string.Concat(arguments.Select(a => " " + Quote(a)));

    /// <summary>
    /// What ran the runner, never a guess at how it was built: the dotnet host with the runner's dll (<c>dotnet
    /// path/ConcurrencySandbox.LoadTests.dll</c>), else the runner's own executable (which <c>dotnet run</c> starts);
    /// a path under <paramref name="workingFolder"/> relative to it.
    /// </summary>
    public static string LauncherOf(string? processPath, string entryPath, string workingFolder)
    {
        var byHost = processPath is not null && Path.GetFileNameWithoutExtension(processPath) == "dotnet";
        return byHost ? $"dotnet {Quote(Under(entryPath))}" : Quote(Under(processPath ?? entryPath));

        string Under(string path)
        {
            var relative = Path.GetRelativePath(workingFolder, path);
            return relative.StartsWith("..", StringComparison.Ordinal) || Path.IsPathRooted(relative) ? path
                : relative.Contains('/', StringComparison.Ordinal) ? relative : "./" + relative;
        }
    }

    private static string Quote(string argument) =>
        argument.Length > 0 && argument.All(c => char.IsAsciiLetterOrDigit(c) || "-_./:,=@+".Contains(c, StringComparison.Ordinal))
            ? argument
            : "'" + argument.Replace("'", "'\\''", StringComparison.Ordinal) + "'";
}
