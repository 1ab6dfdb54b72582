using ConcurrencySandbox.Api.Contention;
using Microsoft.OpenApi;

namespace ConcurrencySandbox.Api.Swagger;

/// <summary>The Swagger tags, described and ordered by seed; every endpoint's tag must be listed here.</summary>
public static class ApiTags
{
    public const string Health = "Health";
    public const string ThreadPool = "ThreadPool";
    public const string Telemetry = "Telemetry";

    /// <summary>In document order: start here, then the seeds from 004 (the basics) down to 000 (the pool's settings), then the runtime's own counters.</summary>
    public static IReadOnlyList<(string Name, string Description)> Ordered { get; } =
    [
        (Health, "Start here: is the sandbox up? Also served by the control plane, which answers while the ThreadPool starves."),
        ("Compute", "Seed 004: the same CPU loop inline vs Task.Run; one run, a compare row, or the seed's whole sweep table."),
        ("SpinWait", "Seed 004: Thread.SpinWait as the honest compute substitute, inline vs Task.Run."),
        ("Sleep", "Seed 004: Thread.Sleep and Task.Delay instead of a loop: what blocking a thread costs."),
        ("FanOut", "Seed 003: one request fans out to a slow third party under four strategies; per-call queue waits show the pool's delay."),
        ("Receive", "Seed 002: a loopback request/response receive loop, allocate-per-call vs pooled buffers and spin vs blocking waits, in CPU time and allocations per receive."),
        ("Streaming", "Seed 001: a TCP server streaming fixed-size messages to every client, allocating vs SocketAsyncEventArgs pool vs Pipelines; its live state and how to connect."),
        (ContentionEndpoints.Tag, ContentionEndpoints.TagDescription),
        (ThreadPool, "Seed 000: read and change the ThreadPool's limits at run time. During starvation use the control plane's URL (see servers): it needs no pool thread."),
        (Telemetry, "The runtime's own counters now, and the per-second history recorded on a dedicated thread. Also on the control plane."),
    ];

    public static IEnumerable<OpenApiTag> ToOpenApi() => Ordered.Select(tag => new OpenApiTag { Name = tag.Name, Description = tag.Description });
}
