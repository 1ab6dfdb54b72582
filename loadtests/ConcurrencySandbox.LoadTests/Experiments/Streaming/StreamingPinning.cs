using System.CommandLine;
using ConcurrencySandbox.LoadTests.Agents;
using ConcurrencySandbox.Platform.Hosting;

namespace ConcurrencySandbox.LoadTests.Experiments.Streaming;

/// <summary>
/// Where the streaming server (the API child) and the validating client process run. On a machine that offers the
/// runner two or more cpus they are pinned apart by default (the first half of the runner's cpus for the server, the
/// rest for the clients), so the clients' work does not show up as the server's lateness; on one cpu, or without
/// taskset, they are not pinned and the report says why.
/// </summary>
/// <param name="NotPinnedBecause">Why neither side is pinned; null when both are.</param>
internal sealed record StreamingPinning(CpuSet? Server, CpuSet? Clients, string? NotPinnedBecause)
{
    private static readonly Option<string?> ServerCpusOption = new("--server-cpus") { Description = "streaming: cpus the API (the server) is pinned to, like 0 or 0-1 (default with 2+ cpus: the first half of the runner's)." };
    private static readonly Option<string?> ClientCpusOption = new("--client-cpus") { Description = "streaming: cpus the validating client process is pinned to, none shared with --server-cpus (default: the runner's other cpus)." };

    public static IReadOnlyList<Option> Options => [ServerCpusOption, ClientCpusOption];

    /// <summary>With --agents N (local): the clients run as one <c>streaming-clients</c> process per agent, each its share; null: one process.</summary>
    public AgentPlan? Agents { get; private init; }

    /// <summary>The client processes the clients are split over.</summary>
    public int ClientProcesses => Agents?.Count ?? 1;

    /// <summary>The cpus client process <paramref name="process"/> is pinned to: its agent's with --agent-cpus, else the clients' cpus.</summary>
    public CpuSet? ClientCpusOf(int process) => Agents?.CpusOf(process) ?? Clients;

    /// <summary>One line for the report: which cpus each side had, or that neither was pinned and why, and the agents the clients run as.</summary>
    public string Describe() => (Server is { } server && Clients is { } clients
        ? $"server pinned to cpu {server}, clients to cpu {Agents?.Cpus ?? clients} (taskset)"
        : $"server and clients not pinned ({NotPinnedBecause})")
        + (Agents is { } agents ? $"; the clients split over {agents.Count} local agents, one {StreamingClientsCommand.Name} process each" : "");

    /// <summary>The clients spread over <paramref name="plan"/>'s local agents; a <see cref="UsageException"/> when its cpus share one with the server.</summary>
    public StreamingPinning OnAgents(AgentPlan plan) =>
        plan.Cpus is { } cpus && Server is { } server && cpus.Overlaps(server)
            ? throw new UsageException($"--agent-cpus ({cpus}) and the streaming server's cpus ({server}, --server-cpus) must not share a cpu")
            : this with { Agents = plan };

    public static StreamingPinning Of(OptionValues values) =>
        Resolve(values.Get(ServerCpusOption), values.Get(ClientCpusOption), CpuSet.OfThisProcess(), CpuSet.CanPin);

    /// <summary>The pinning the options ask for on a runner that may use <paramref name="available"/>; a <see cref="UsageException"/> naming the option and the cpus otherwise.</summary>
    public static StreamingPinning Resolve(string? serverText, string? clientsText, CpuSet available, bool canPin)
    {
        var server = Parse(ServerCpusOption, serverText, available);
        var clients = Parse(ClientCpusOption, clientsText, available);
        if (server is null && clients is null)
        {
            return !canPin ? new(null, null, "taskset (util-linux) is not installed")
                : available.Count < 2 ? new(null, null, $"the runner has 1 cpu ({available}), so server and clients share it")
                : new(CpuSet.Of(available.Cpus.Take(available.Count / 2)), CpuSet.Of(available.Cpus.Skip(available.Count / 2)), null);
        }

        if (server is not null && clients is not null && server.Overlaps(clients))
        {
            throw new UsageException($"{ServerCpusOption.Name} ({server}) and {ClientCpusOption.Name} ({clients}) must not share a cpu");
        }

        if (!canPin)
        {
            throw new UsageException($"{(server is null ? ClientCpusOption : ServerCpusOption).Name} needs taskset (util-linux), which is not installed");
        }

        server ??= available.Except(clients!)
            ?? throw new UsageException($"{ClientCpusOption.Name} ({clients}) leaves none of the runner's cpus ({available}) for the server");
        clients ??= available.Except(server)
            ?? throw new UsageException($"{ServerCpusOption.Name} ({server}) leaves none of the runner's cpus ({available}) for the clients");
        return new(server, clients, null);
    }

    private static CpuSet? Parse(Option<string?> option, string? text, CpuSet available) =>
        text is null ? null
        : CpuSet.TryParse(text) is { } cpus && available.Contains(cpus) ? cpus
        : throw new UsageException($"{option.Name} must name cpus from {available} (the runner's), like 0 or 0-1; got '{text}'");
}
