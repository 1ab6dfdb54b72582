using ConcurrencySandbox.Api.Swagger;
using ConcurrencySandbox.Contracts.Streaming;
using ConcurrencySandbox.Experiments.Streaming;
using ConcurrencySandbox.Validation;
using Microsoft.Extensions.Options;

namespace ConcurrencySandbox.Api.Streaming;

/// <summary>Seed 001: a TCP server streaming fixed-size messages to every client, and its live state.</summary>
public static class StreamingEndpoints
{
    private static readonly ApiTag Tag = new(
        "Streaming",
        "Seed 001: a TCP server streaming fixed-size messages to every client, allocating vs SocketAsyncEventArgs pool vs Pipelines; its live state and how to connect.",
        Order: 40);

    private const string SampleClient =
        "Connect with TCP to the endpoint, read the 16-byte header (magic \"CSSF\", version u16, implementation u16, " +
        "messageBytes i32, intervalMs i32, little-endian), then read frames of 12 + messageBytes bytes: sequence i64, " +
        "FNV-1a checksum u32 over the sequence and payload, payload byte i = (byte)(sequence * 31 + i). In C#:\n\n" +
        "```csharp\n" +
        "var tally = new StreamTally(); // ConcurrencySandbox.Experiments.Streaming\n" +
        "using var stop = new CancellationTokenSource(TimeSpan.FromSeconds(10));\n" +
        "await StreamingClient.RunManyAsync(new IPEndPoint(IPAddress.Loopback, port), clients: 50, connectIntervalMs: 15, tally, stop.Token);\n" +
        "Console.WriteLine(tally.Counts()); // delivered, lost, corrupt, out of order, lateness p50/p99\n" +
        "```\n\n" +
        "Or by hand: `python3 -c \"import socket; s=socket.create_connection(('127.0.0.1', PORT)); print(s.recv(16).hex()); print(s.recv(140).hex())\"`.";

    public static WebApplicationBuilder AddStreaming(this WebApplicationBuilder builder)
    {
        builder.Services.AddDeclaredSettings<StreamingOptions, StreamingOptionsValidator>(builder.Configuration, StreamingOptions.SectionName);
        builder.Services.AddSingleton<StreamingHost>();
        builder.Services.AddHostedService(services => services.GetRequiredService<StreamingHost>());
        return builder;
    }

    /// <summary>Whether the answer carries the lateness histogram's buckets; a reader that needs only counters leaves them out.</summary>
    private static readonly ChoiceParameter Buckets = new(
        "buckets", ["true", "false"], "true",
        "Whether server.sendLatenessBuckets carries the send-lateness histogram's non-empty buckets (up to about 16 KB with a wide spread); " +
        "false leaves it null, so a reader that needs only the counters adds no such garbage to the process it measures.");

    public static IEndpointRouteBuilder MapStreaming(this IEndpointRouteBuilder endpoints)
    {
        endpoints.MapGroup("/api/streaming").WithApiTag(Tag)
            .MapGet("", (StreamingStatusQuery query, StreamingHost host, IOptions<StreamingOptions> options) =>
                TypedResults.Ok(ReadStatus(host, options.Value, withLatenessBuckets: query.Buckets == "true")))
            .WithName("Streaming")
            .WithSummary("Seed 001: the streaming server's implementation, endpoint, clients, messages, bytes, and allocations, collections and CPU per message.")
            .WithDescription(
                "The server runs when Streaming:Port (env Streaming__Port) is set, with Streaming:Implementation = allocating (a new buffer and task per message, " +
                "the seed's allocation-heavy pattern), saea-pooled (SocketAsyncEventArgs over one pre-allocated block, the seed's pool) or pipelines " +
                "(System.IO.Pipelines drained with Socket.SendAsync(ReadOnlyMemory)). Every client gets one message per Streaming:IntervalMs; a client more " +
                "than Streaming:QueueMessages behind is dropped and counted. Process figures are since the server started and cover the whole process " +
                "(including this endpoint). " + SampleClient)
            .WithQueryParameters(Buckets);
        return endpoints;
    }

    private static StreamingStatus ReadStatus(StreamingHost host, StreamingOptions options, bool withLatenessBuckets)
    {
        var server = host.Server;
        var counters = server?.Counters(withLatenessBuckets);
        return new StreamingStatus(
            server is not null,
            options.Implementation,
            host.Endpoint,
            server?.EndPoint?.Port,
            options.MessageBytes,
            StreamProtocol.FrameBytes(options.MessageBytes),
            options.IntervalMs,
            options.QueueMessages,
            options.MaxClients,
            counters,
            counters is not null && host.AtStart is { } atStart ? ProcessSince(atStart, ProcessCounters.Read(), counters.MessagesSent) : null);
    }

    /// <summary>The whole process since the streaming server started (counts) and now (sizes).</summary>
    private static StreamingProcessFigures ProcessSince(ProcessCounters start, ProcessCounters now, long messages)
    {
        var allocated = now.AllocatedBytes - start.AllocatedBytes;
        var cpuMs = now.CpuTimeMs - start.CpuTimeMs;
        return new StreamingProcessFigures(
            allocated,
            messages == 0 ? 0 : (double)allocated / messages,
            now.Gen0Collections - start.Gen0Collections,
            now.Gen1Collections - start.Gen1Collections,
            now.Gen2Collections - start.Gen2Collections,
            cpuMs,
            messages == 0 ? 0 : cpuMs * 1000 / messages,
            now.HeapSizeBytes,
            now.WorkingSetBytes,
            now.OsThreads);
    }
}

/// <summary>The status read's input: whether it carries the lateness histogram's buckets ("true" or "false").</summary>
internal sealed record StreamingStatusQuery(string Buckets) : DeclaredQuery<StreamingStatusQuery>;
