using System.Diagnostics;

namespace ConcurrencySandbox.Deploy.Tests.Support;

/// <summary>A command-line tool the tests call when this machine has it.</summary>
internal static class ExternalTool
{
    public static bool IsOnPath(string tool) =>
        (Environment.GetEnvironmentVariable("PATH") ?? "")
            .Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries)
            .Any(dir => File.Exists(Path.Combine(dir, tool)) || File.Exists(Path.Combine(dir, tool + ".exe")));

    /// <summary>Runs the tool to completion and returns its exit code and output.</summary>
    public static (int ExitCode, string Output, string Error) Run(string tool, params string[] arguments) =>
        RunWith(new Dictionary<string, string>(), tool, arguments);

    /// <summary>Runs the tool with <paramref name="environment"/> added to this process's environment.</summary>
    public static (int ExitCode, string Output, string Error) RunWith(IReadOnlyDictionary<string, string> environment, string tool, params string[] arguments)
    {
        var start = new ProcessStartInfo(tool)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            WorkingDirectory = Repository.Root,
        };
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }
        foreach (var (name, value) in environment)
        {
            start.Environment[name] = value;
        }

        using var process = Process.Start(start) ?? throw new InvalidOperationException($"Could not start {tool}.");
        var error = process.StandardError.ReadToEndAsync();
        var output = process.StandardOutput.ReadToEnd();
        process.WaitForExit();
        return (process.ExitCode, output, error.Result);
    }
}

/// <summary>A fact that runs only where the named tool is on the PATH, and says so when skipped.</summary>
internal sealed class FactWhenToolExistsAttribute : FactAttribute
{
    public FactWhenToolExistsAttribute(string tool)
    {
        if (!ExternalTool.IsOnPath(tool))
        {
            Skip = $"{tool} is not on the PATH of this machine.";
        }
    }
}

/// <summary>A theory that runs only where the named tool is on the PATH, and says so when skipped.</summary>
internal sealed class TheoryWhenToolExistsAttribute : TheoryAttribute
{
    public TheoryWhenToolExistsAttribute(string tool)
    {
        if (!ExternalTool.IsOnPath(tool))
        {
            Skip = $"{tool} is not on the PATH of this machine.";
        }
    }
}
