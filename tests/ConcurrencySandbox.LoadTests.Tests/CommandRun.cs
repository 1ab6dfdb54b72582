using System.Diagnostics;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>Runs a command line to its end for a test: its exit code and both outputs.</summary>
internal static class CommandRun
{
    private static readonly TimeSpan HangGuard = TimeSpan.FromMinutes(2);

    /// <summary>
    /// Starts <paramref name="fileName"/> with <paramref name="args"/> and both outputs redirected, for a test that reads them
    /// while it runs. A test host started in the background by a non-interactive shell (<c>bash .ci/run &amp;</c>) has
    /// SIGINT ignored, as POSIX says, and a child inherits that, so the runner would not see the Ctrl+C the interrupt tests
    /// send: then the command is started through coreutils' <c>env --default-signal=INT</c>, which gives it back the default.
    /// </summary>
    /// <param name="redirectInput">Give the test the command's standard input too (what is typed at a terminal).</param>
    public static Process Start(string fileName, IEnumerable<string> args, bool redirectInput = false)
    {
        var start = SigintIgnoredHere()
            ? new ProcessStartInfo("env") { ArgumentList = { "--default-signal=INT", fileName } }
            : new ProcessStartInfo(fileName);
        start.RedirectStandardOutput = true;
        start.RedirectStandardError = true;
        start.RedirectStandardInput = redirectInput;
        start.UseShellExecute = false;
        foreach (var arg in args)
        {
            start.ArgumentList.Add(arg);
        }
        return Process.Start(start)!;
    }

    /// <summary>Whether this process ignores SIGINT (bit 2 of /proc/self/status's SigIgn mask), as a child would then too.</summary>
    private static bool SigintIgnoredHere() =>
        File.Exists("/proc/self/status")
        && File.ReadLines("/proc/self/status").FirstOrDefault(l => l.StartsWith("SigIgn:", StringComparison.Ordinal)) is { } line
        && (Convert.ToUInt64(line["SigIgn:".Length..].Trim(), 16) & 0x2) != 0;

    /// <summary>Runs <paramref name="fileName"/> with <paramref name="args"/>; the process tree is killed if it outlives the hang guard (or <paramref name="hangGuard"/>).</summary>
    public static async Task<(int Code, string Output, string Error)> RunAsync(string fileName, IEnumerable<string> args, TimeSpan? hangGuard = null)
    {
        using var process = Start(fileName, args);
        var output = process.StandardOutput.ReadToEndAsync();
        var error = process.StandardError.ReadToEndAsync();
        using var timeout = new CancellationTokenSource(hangGuard ?? HangGuard);
        try
        {
            await process.WaitForExitAsync(timeout.Token);
        }
        catch (OperationCanceledException)
        {
            process.Kill(entireProcessTree: true);
            throw;
        }
        return (process.ExitCode, await output, await error);
    }

    /// <summary>
    /// Reads <paramref name="process"/>'s output until a line <paramref name="stopAfter"/> accepts (within the hang guard),
    /// sends it SIGINT as Ctrl+C would, and waits for it to exit within the runner's stop grace; the output holds
    /// <paramref name="readBefore"/> first (lines the caller read itself).
    /// </summary>
    public static async Task<(int Code, string Output, string Error)> InterruptAfterAsync(Process process, Func<string, bool> stopAfter, params string[] readBefore)
    {
        var error = process.StandardError.ReadToEndAsync();
        var lines = new List<string>(readBefore);
        using (var midway = new CancellationTokenSource(HangGuard))
        {
            while (await process.StandardOutput.ReadLineAsync(midway.Token) is { } line)
            {
                lines.Add(line);
                if (stopAfter(line))
                {
                    break;
                }
            }
        }
        using (var kill = Process.Start("kill", ["-INT", process.Id.ToString(System.Globalization.CultureInfo.InvariantCulture)]))
        {
            await kill.WaitForExitAsync();
        }
        var output = string.Join('\n', lines) + '\n' + await process.StandardOutput.ReadToEndAsync();
        // The stop's grace bounds how long it may take; a hang fails here rather than at the test host's timeout.
        using (var exit = new CancellationTokenSource(Cli.CommandLine.StopGrace + TimeSpan.FromSeconds(30)))
        {
            await process.WaitForExitAsync(exit.Token);
        }
        return (process.ExitCode, output, await error);
    }
}
