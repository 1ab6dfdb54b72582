using ConcurrencySandbox.Contracts.Streaming;
using ConcurrencySandbox.Platform.Hosting;

namespace ConcurrencySandbox.LoadTests.Experiments.Streaming;

/// <summary>
/// The runner's side of a <c>streaming-clients</c> process (<see cref="StreamingClientsCommand"/>): this runner's own
/// assembly started again through <see cref="ChildProcess"/>, pinned to <paramref name="cpus"/> when given. Every report
/// line it writes is parsed as it arrives and handed to <paramref name="onReading"/>; <see cref="StopAsync"/> asks it to
/// stop (SIGTERM) and returns its final report.
/// </summary>
internal sealed class StreamingClientsProcess : IAsyncDisposable
{
    private static readonly TimeSpan FirstReportTimeout = TimeSpan.FromSeconds(60);
    private static readonly TimeSpan FinalReportTimeout = TimeSpan.FromSeconds(60);

    private readonly ChildProcess _child;

    private StreamingClientsProcess(StreamingClientsPlan plan, CpuSet? cpus, Action<StreamingClientsReading>? onReading)
    {
        Plan = plan;
        Cpus = cpus;
        _child = ChildProcess.Start(new ChildLaunch(typeof(StreamingClientsProcess).Assembly.Location, StreamingClientsCommand.ArgumentsOf(plan))
        {
            Cpus = cpus,
            OnOutputLine = line =>
            {
                if (StreamingClientsReading.FromLine(line) is { } reading)
                {
                    onReading?.Invoke(reading);
                }
            },
        });
    }

    public StreamingClientsPlan Plan { get; }

    /// <summary>The cpus the process is pinned to; null when it is not.</summary>
    public CpuSet? Cpus { get; }

    /// <summary>Starts the process and waits for its first report; a <see cref="UsageException"/> with its errors when it cannot start.</summary>
    public static async Task<StreamingClientsProcess> StartAsync(StreamingClientsPlan plan, CpuSet? cpus, Action<StreamingClientsReading>? onReading, CancellationToken cancellationToken)
    {
        StreamingClientsProcess clients;
        try
        {
            clients = new StreamingClientsProcess(plan, cpus, onReading);
        }
        catch (Exception e) when (e is InvalidOperationException or System.ComponentModel.Win32Exception)
        {
            throw new UsageException($"the streaming client process could not start: {e.Message}");
        }

        try
        {
            await clients.ReportAsync(_ => true, FirstReportTimeout, cancellationToken);
            return clients;
        }
        catch
        {
            await clients.DisposeAsync();
            throw;
        }
    }

    /// <summary>Asks the clients to stop (SIGTERM) and returns the process's final report.</summary>
    public async Task<StreamingClientsReading> StopAsync(CancellationToken cancellationToken)
    {
        _child.Terminate();
        return await ReportAsync(reading => reading.Final, FinalReportTimeout, cancellationToken);
    }

    public ValueTask DisposeAsync() => _child.DisposeAsync();

    private async Task<StreamingClientsReading> ReportAsync(Func<StreamingClientsReading, bool> wanted, TimeSpan timeout, CancellationToken cancellationToken)
    {
        try
        {
            return await _child.WaitForLineAsync(line => StreamingClientsReading.FromLine(line) is { } reading && wanted(reading) ? reading : null, timeout, cancellationToken);
        }
        catch (ChildExitedException exited)
        {
            throw new UsageException($"the streaming client process exited with code {exited.ExitCode} without its report: {string.Join(" | ", exited.LastErrors)}");
        }
        catch (TimeoutException)
        {
            throw new UsageException($"the streaming client process wrote no report within {timeout.TotalSeconds:0} s");
        }
    }
}
