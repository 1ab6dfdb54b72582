using System.Text.Json;
using System.Text.Json.Serialization;

namespace ConcurrencySandbox.Contracts.Streaming;

/// <summary>
/// One report of the validating client process (<c>streaming-clients</c>, the runner's own sub-command), written to its
/// stdout as <see cref="LinePrefix"/> followed by the JSON (<see cref="ContractJson"/>) of this record: what its clients
/// saw since they started, and what the process itself cost, so the load generator's share of the machine is known.
/// </summary>
/// <param name="ElapsedSeconds">Since the process started its clients.</param>
/// <param name="Connected">Clients that read a valid header.</param>
/// <param name="Delivered">Intact frames received in order.</param>
/// <param name="Lost">Sequence numbers skipped.</param>
/// <param name="Corrupt">Frames whose checksum or payload did not match.</param>
/// <param name="OutOfOrder">Frames that arrived after a later one.</param>
/// <param name="ClosedByServer">Clients whose stream the server ended.</param>
/// <param name="Failed">Clients that could not connect, got a bad header, or hit a socket error.</param>
/// <param name="LatenessBuckets">The delivered frames' arrival lateness so far, as the non-empty buckets of a lateness histogram.</param>
/// <param name="CpuTimeMs">The client process's CPU time (user + system) since it started.</param>
/// <param name="ProcessorCount">The processors the client process sees (its pinning).</param>
/// <param name="Final">The last report: the clients have stopped.</param>
public sealed record StreamingClientsReading(
    double ElapsedSeconds,
    long Connected,
    long Delivered,
    long Lost,
    long Corrupt,
    long OutOfOrder,
    long ClosedByServer,
    long Failed,
    IReadOnlyList<LatenessBucket> LatenessBuckets,
    double CpuTimeMs,
    int ProcessorCount,
    bool Final)
{
    /// <summary>What starts each report line; other lines (warnings) are not reports.</summary>
    public const string LinePrefix = "streaming-clients ";

    /// <summary>Messages that did not arrive intact and in order.</summary>
    [JsonIgnore]
    public long NotIntact => Lost + Corrupt + OutOfOrder;

    /// <summary>The report as one stdout line.</summary>
    public string ToLine() => LinePrefix + JsonSerializer.Serialize(this, ContractJson.Options);

    /// <summary>The report a line carries; null when the line is not a report.</summary>
    public static StreamingClientsReading? FromLine(string? line) =>
        line is not null && line.StartsWith(LinePrefix, StringComparison.Ordinal)
            ? JsonSerializer.Deserialize<StreamingClientsReading>(line.AsSpan(LinePrefix.Length), ContractJson.Options)
            : null;
}
