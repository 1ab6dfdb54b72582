using ConcurrencySandbox.Experiments.ThreadPools;
using ConcurrencySandbox.Platform.Machine;
using Microsoft.Extensions.Options;

namespace ConcurrencySandbox.Api.ThreadPools;

/// <summary>
/// Applies the ThreadPool section before the server starts serving (hosted services start first) and logs the
/// one line that says how this process will schedule work.
/// </summary>
internal sealed class ThreadPoolStartup(ThreadPoolControl control, IOptions<ThreadPoolStartupOptions> options, ILogger<ThreadPoolStartup> logger) : IHostedService
{
    public Task StartAsync(CancellationToken cancellationToken)
    {
        var result = control.ApplyAtStartup(options.Value.ToChange());
        if (!result.Applied)
        {
            throw new InvalidOperationException($"The {ThreadPoolStartupOptions.SectionName} settings (env {ThreadPoolStartupOptions.SectionName}__*) could not be applied: {result.Refusal}");
        }

        var limits = control.StartupLimits;
        logger.LogInformation(
            "Runtime: {ProcessorCount} processors, {GCMode} GC, thread pool min {MinWorkerThreads} worker / {MinIoThreads} I/O threads, max {MaxWorkerThreads} worker / {MaxIoThreads} I/O threads",
            CurrentMachine.Info.ProcessorCount,
            GCMode.Description,
            limits.MinWorkerThreads,
            limits.MinIoThreads,
            limits.MaxWorkerThreads,
            limits.MaxIoThreads);
        return Task.CompletedTask;
    }

    public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;
}
