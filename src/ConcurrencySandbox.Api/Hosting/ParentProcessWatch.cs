using System.Diagnostics;
using System.Globalization;
using ConcurrencySandbox.Contracts.Hosting;
using ConcurrencySandbox.Validation;

namespace ConcurrencySandbox.Api.Hosting;

/// <summary>
/// Stops the API once the process that started it has gone, even if that process was killed outright, so a load
/// runner never leaves an orphan server behind. Active only when the setting <c>ParentProcess:Id</c>
/// (env <c>ParentProcess__Id</c>, or <c>--ParentProcess:Id=1234</c>) names the parent's pid.
/// </summary>
public sealed class ParentProcessWatch(IConfiguration configuration, IHostApplicationLifetime lifetime, ILogger<ParentProcessWatch> logger) : BackgroundService
{
    private static readonly TimeSpan CheckPeriod = TimeSpan.FromSeconds(1);

    protected override async Task ExecuteAsync(CancellationToken stoppingToken)
    {
        if (configuration[ApiStartup.ParentProcessSetting] is not { } text)
        {
            return;
        }
        if (!int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out var pid))
        {
            throw new InvalidOperationException($"{SettingName.Of("ParentProcess", "Id")} must be a process id, got '{text}'.");
        }
        // Checked once the app has started, so a stop never cancels the server's own start half-way (a parent gone
        // already stops the app right after it starts).
        var started = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        using (lifetime.ApplicationStarted.Register(() => started.TrySetResult()))
        {
            await started.Task.WaitAsync(stoppingToken);
        }

        // One handle on the parent, asked each second: Process.GetProcessById every second allocated more, background
        // garbage in the allocation experiments (docs/notebook/streaming.md, "Instruments that do not disturb").
        using var parent = Open(pid);
        using var timer = new PeriodicTimer(CheckPeriod);
        while (await timer.WaitForNextTickAsync(stoppingToken))
        {
            if (HasGone(parent))
            {
                logger.LogWarning("Parent process {Pid} has exited; stopping.", pid);
                lifetime.StopApplication();
                return;
            }
        }
    }

    /// <summary>
    /// The check made each second: asking the one handle allocates nothing (a test holds it to that), so the watch adds
    /// no garbage to the allocation experiments' figures.
    /// </summary>
    public static bool HasGone(Process? parent) => parent is null || parent.HasExited;

    /// <summary>The parent process, or null when it has already gone.</summary>
    private static Process? Open(int pid)
    {
        try
        {
            return Process.GetProcessById(pid);
        }
        catch (ArgumentException)
        {
            return null;
        }
    }
}
