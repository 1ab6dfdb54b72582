namespace ConcurrencySandbox.Api.Hosting;

/// <summary>
/// Creates the singleton <typeparamref name="TService"/> when the host starts, for a service whose construction is its
/// start (the telemetry recorder's thread, the shutdown watchdog's signal handlers), so no MapX call has to resolve it.
/// </summary>
internal sealed class StartWithHost<TService>(TService service) : IHostedService
    where TService : class
{
    public Task StartAsync(CancellationToken cancellationToken)
    {
        GC.KeepAlive(service);
        return Task.CompletedTask;
    }

    public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;
}
