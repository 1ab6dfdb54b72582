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
internal sealed class ParentProcessWatch(IConfiguration configuration, IHostApplicationLifetime lifetime, ILogger<ParentProcessWatch> logger) : BackgroundService
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
        using var timer = new PeriodicTimer(CheckPeriod);
        while (await timer.WaitForNextTickAsync(stoppingToken))
        {
            if (!IsAlive(pid))
            {
                logger.LogWarning("Parent process {Pid} has exited; stopping.", pid);
                lifetime.StopApplication();
                return;
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
