using System.Diagnostics;
using ConcurrencySandbox.Api;

namespace ConcurrencySandbox.LoadTests.Hosting;

/// <summary>The hidden verb the runner's API child runs: the sandbox API, and nothing of the load generator.</summary>
public static class ServeApi
{
    public const string ParentPidOption = "--parent-pid";
    private static readonly TimeSpan ParentCheckPeriod = TimeSpan.FromSeconds(1);

    public static async Task<int> RunAsync(string[] args)
    {
        var parentPid = TakeParentPid(ref args);
        // Per-request Information logs would slow the server under load; the runner keeps only warnings.
        string[] quiet = ["--Logging:LogLevel:Default=Warning", "--Logging:LogLevel:Microsoft.Hosting.Lifetime=Information"];
        var app = SandboxApp.Build([.. quiet, .. args]);
        using var orphaned = new CancellationTokenSource();
        var watchdog = parentPid is { } pid ? WatchParentAsync(pid, orphaned) : Task.CompletedTask;
        await Microsoft.Extensions.Hosting.HostingAbstractionsHostExtensions.RunAsync(app, orphaned.Token);
        await orphaned.CancelAsync();
        await watchdog;
        return 0;
    }

    private static int? TakeParentPid(ref string[] args)
    {
        var at = Array.IndexOf(args, ParentPidOption);
        if (at < 0 || at + 1 >= args.Length || !int.TryParse(args[at + 1], out var pid))
        {
            return null;
        }
        args = [.. args[..at], .. args[(at + 2)..]];
        return pid;
    }

    /// <summary>Stops the API when the runner that started it has gone (even if it was killed outright).</summary>
    private static async Task WatchParentAsync(int pid, CancellationTokenSource orphaned)
    {
        using var timer = new PeriodicTimer(ParentCheckPeriod);
        while (!orphaned.IsCancellationRequested && await timer.WaitForNextTickAsync(CancellationToken.None))
        {
            if (!IsAlive(pid))
            {
                await orphaned.CancelAsync();
            }
        }
    }

    private static bool IsAlive(int pid)
    {
        try
        {
            using var process = Process.GetProcessById(pid);
            return !process.HasExited;
        }
        catch (ArgumentException)
        {
            return false;
        }
    }
}
