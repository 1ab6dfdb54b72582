using System.Diagnostics;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>Runs a command line to its end for a test: its exit code and both outputs.</summary>
internal static class CommandRun
{
    private static readonly TimeSpan HangGuard = TimeSpan.FromMinutes(2);

    /// <summary>Starts <paramref name="fileName"/> with <paramref name="args"/> and both outputs redirected, for a test that reads them while it runs.</summary>
    public static Process Start(string fileName, IEnumerable<string> args)
    {
        var start = new ProcessStartInfo(fileName) { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        foreach (var arg in args)
        {
            start.ArgumentList.Add(arg);
        }
        return Process.Start(start)!;
    }

    /// <summary>Runs <paramref name="fileName"/> with <paramref name="args"/>; the process tree is killed if it outlives the hang guard.</summary>
    public static async Task<(int Code, string Output, string Error)> RunAsync(string fileName, IEnumerable<string> args)
    {
        using var process = Start(fileName, args);
        var output = process.StandardOutput.ReadToEndAsync();
        var error = process.StandardError.ReadToEndAsync();
        using var timeout = new CancellationTokenSource(HangGuard);
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
}
