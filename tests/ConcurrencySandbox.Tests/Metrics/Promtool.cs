using System.Diagnostics;

namespace ConcurrencySandbox.Tests.Metrics;

/// <summary>Prometheus's own checker, from Debian's prometheus package (.ci/run installs it); null <see cref="Unavailable"/> means it can run.</summary>
internal static class Promtool
{
    private static readonly Lazy<string?> Installation = new(() =>
    {
        try
        {
            var (exitCode, output) = Check("--version", string.Empty);
            return exitCode == 0 ? null : $"promtool --version failed: {output}";
        }
        catch (System.ComponentModel.Win32Exception)
        {
            return "promtool is not on the PATH (Debian package prometheus: apt-get install prometheus; .ci/run installs it as root).";
        }
    });

    public static string? Unavailable => Installation.Value;

    /// <summary>Runs `promtool check metrics` on the text; returns its exit code and its output.</summary>
    public static (int ExitCode, string Output) CheckMetrics(string exposition) => Check("check metrics", exposition);

    private static (int ExitCode, string Output) Check(string arguments, string input)
    {
        var start = new ProcessStartInfo("promtool", arguments) { RedirectStandardInput = true, RedirectStandardOutput = true, RedirectStandardError = true };
        using var process = Process.Start(start) ?? throw new InvalidOperationException("Could not start promtool.");
        var output = process.StandardOutput.ReadToEndAsync();
        var errors = process.StandardError.ReadToEndAsync();
        process.StandardInput.Write(input);
        process.StandardInput.Close();
        if (!process.WaitForExit(TimeSpan.FromMinutes(1)))
        {
            process.Kill();
            return (-1, "promtool did not finish within a minute.");
        }

        return (process.ExitCode, output.Result + errors.Result);
    }
}

/// <summary>A fact that runs only where promtool is installed, and says why when skipped.</summary>
internal sealed class FactWhenPromtoolInstalledAttribute : FactAttribute
{
    public FactWhenPromtoolInstalledAttribute()
    {
        if (Promtool.Unavailable is { } reason)
        {
            Skip = reason;
        }
    }
}
