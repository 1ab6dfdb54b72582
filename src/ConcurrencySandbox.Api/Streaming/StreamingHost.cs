using System.Net;
using ConcurrencySandbox.Experiments.Streaming;
using ConcurrencySandbox.Experiments.Telemetry;
using Microsoft.Extensions.Options;

namespace ConcurrencySandbox.Api.Streaming;

/// <summary>
/// Runs the streaming server for the life of the app when Streaming:Port is set, and remembers the process's
/// counters at its start so figures per message cover the streaming only from then on.
/// </summary>
public sealed class StreamingHost(IOptions<StreamingOptions> options) : IHostedService, IAsyncDisposable
{
    /// <summary>The fixed start of the line printed once the server listens; the load runner waits for it.</summary>
    public const string ListeningLinePrefix = "ConcurrencySandbox streaming server";

    public StreamingServer? Server { get; private set; }

    /// <summary>Where the server listens (tcp://127.0.0.1:port), written once so a status read does not format it again.</summary>
    public string? Endpoint { get; private set; }

    /// <summary>The process's counters when the server started.</summary>
    public ProcessCounters? AtStart { get; private set; }

    public Task StartAsync(CancellationToken cancellationToken)
    {
        var port = options.Value.Port;
        if (port == 0)
        {
            return Task.CompletedTask;
        }

        AtStart = ProcessCounters.Read();
        Server = StreamingServer.Create(options.Value.ToSettings());
        Server.Start(new IPEndPoint(IPAddress.Loopback, port));
        Endpoint = $"tcp://{Server.EndPoint}";
        Console.WriteLine($"{ListeningLinePrefix} ({Server.ImplementationName}) listening at {Endpoint}");
        return Task.CompletedTask;
    }

    public async Task StopAsync(CancellationToken cancellationToken) => await DisposeAsync();

    public async ValueTask DisposeAsync()
    {
        if (Server is { } server)
        {
            Server = null;
            Endpoint = null;
            await server.DisposeAsync();
        }
    }
}

/// <summary>Process-wide counters that only grow, plus the current heap (GC.GetTotalMemory), working set and thread count: a value, so a reading allocates nothing.</summary>
public readonly record struct ProcessCounters(
    long AllocatedBytes, int Gen0Collections, int Gen1Collections, int Gen2Collections, double CpuTimeMs, long HeapSizeBytes, long WorkingSetBytes, int OsThreads)
{
    public static ProcessCounters Read()
    {
        var process = ProcessStat.Read();
        return new(
            GC.GetTotalAllocatedBytes(),
            GC.CollectionCount(0),
            GC.CollectionCount(1),
            GC.CollectionCount(2),
            Environment.CpuUsage.TotalTime.TotalMilliseconds,
            GC.GetTotalMemory(forceFullCollection: false),
            process.WorkingSetBytes,
            process.OsThreadCount);
    }
}
