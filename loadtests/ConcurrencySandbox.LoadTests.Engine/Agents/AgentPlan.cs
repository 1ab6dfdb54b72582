using System.Globalization;
using System.Net;
using ConcurrencySandbox.Platform.Hosting;

namespace ConcurrencySandbox.LoadTests.Agents;

/// <summary>
/// How a run's load is spread over agents: <see cref="Count"/> local agent processes (pinned round-robin to
/// <see cref="Cpus"/> when given), or, with <see cref="Listen"/>, as many agents started elsewhere (an Indexed Job, a
/// compose scale-out) that connect to the coordinator there.
/// </summary>
public sealed record AgentPlan(int Count, IPEndPoint? Listen, CpuSet? Cpus, TimeSpan Deadline)
{
    /// <summary>External agents a coordinator waits for at most.</summary>
    public const int MaxExternalAgents = 64;

    /// <summary>Local agent processes this machine can start: a few per core (each is a .NET process with its own load client).</summary>
    public static int MaxLocalAgents => Environment.ProcessorCount * 4;

    public bool StartsLocalAgents => Listen is null;

    /// <summary>Checks the count against what will start them; throws <see cref="UsageException"/> with one line.</summary>
    public static AgentPlan Of(int count, string? listen, string? cpus, double deadlineSeconds, bool inContainerNetwork)
    {
        if (count < 1)
        {
            throw new UsageException(string.Create(CultureInfo.InvariantCulture, $"--agents must be at least 1, got {count}"));
        }
        var endpoint = listen is null ? null : AgentAddress.ListenEndpoint(listen, inContainerNetwork);
        var limit = endpoint is null ? MaxLocalAgents : MaxExternalAgents;
        if (count > limit)
        {
            throw new UsageException(endpoint is null
                ? string.Create(CultureInfo.InvariantCulture, $"--agents {count} is more than this machine can start ({limit}: 4 per processor, {Environment.ProcessorCount} processors)")
                : string.Create(CultureInfo.InvariantCulture, $"--agents {count} is more than a coordinator waits for ({limit})"));
        }
        var pinning = cpus is null ? null : CpuSet.TryParse(cpus) ?? throw new UsageException($"--agent-cpus takes a cpu list like 1 or 0,2-3, got '{cpus}'");
        if (pinning is not null && endpoint is not null)
        {
            throw new UsageException("--agent-cpus pins local agent processes, so it cannot go with --agent-listen (pin external agents where they run)");
        }
        if (deadlineSeconds <= 0)
        {
            throw new UsageException(string.Create(CultureInfo.InvariantCulture, $"--agent-deadline-s must be positive, got {deadlineSeconds}"));
        }
        return new AgentPlan(count, endpoint, pinning, TimeSpan.FromSeconds(deadlineSeconds));
    }

    /// <summary>The cpu agent <paramref name="index"/> is pinned to: its turn in <see cref="Cpus"/>.</summary>
    public CpuSet? CpusOf(int index) => Cpus is null ? null : CpuSet.Of([Cpus.Cpus[index % Cpus.Count]]);
}

/// <summary>
/// Where a coordinator listens and agents connect: loopback, unless this process runs inside a container network (a
/// pod, a compose service), where the coordinator is another container's name.
/// </summary>
public static class AgentAddress
{
    /// <summary>
    /// True in a container: Kubernetes sets KUBERNETES_SERVICE_HOST in every pod, Docker writes /.dockerenv, Podman
    /// /run/.containerenv.
    /// </summary>
    public static bool InContainerNetwork =>
        Environment.GetEnvironmentVariable("KUBERNETES_SERVICE_HOST") is { Length: > 0 } || File.Exists("/.dockerenv") || File.Exists("/run/.containerenv");

    /// <summary>An agent's --coordinator: tcp://host:port, loopback outside a container network.</summary>
    public static Uri CoordinatorUrl(string text, bool inContainerNetwork)
    {
        if (!Uri.TryCreate(text, UriKind.Absolute, out var uri) || uri.Scheme != "tcp" || uri.Port <= 0)
        {
            throw new UsageException($"--coordinator must be tcp://host:port like tcp://127.0.0.1:7070, got '{text}'");
        }
        if (!IsLoopback(uri.DnsSafeHost) && !inContainerNetwork)
        {
            throw new UsageException($"--coordinator host '{uri.Host}' is not a loopback address and this agent is not in a container network; agents reach other machines only as pods or compose services");
        }
        return uri;
    }

    /// <summary>A coordinator's --agent-listen: address:port, loopback outside a container network.</summary>
    public static IPEndPoint ListenEndpoint(string text, bool inContainerNetwork)
    {
        if (!IPEndPoint.TryParse(text, out var endpoint) || endpoint.Port == 0 && !text.EndsWith(":0", StringComparison.Ordinal))
        {
            throw new UsageException($"--agent-listen takes address:port like 127.0.0.1:7070 or 0.0.0.0:7070, got '{text}'");
        }
        if (!IPAddress.IsLoopback(endpoint.Address) && !inContainerNetwork)
        {
            throw new UsageException($"--agent-listen {text} is not a loopback address and this coordinator is not in a container network; listen on 127.0.0.1 here");
        }
        return endpoint;
    }

    private static bool IsLoopback(string host) =>
        host.Equals("localhost", StringComparison.OrdinalIgnoreCase) || IPAddress.TryParse(host, out var address) && IPAddress.IsLoopback(address);
}
