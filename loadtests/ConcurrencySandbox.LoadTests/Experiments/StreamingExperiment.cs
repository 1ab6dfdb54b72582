using System.Globalization;
using System.Net;
using System.Net.Http.Json;
using System.Net.Sockets;
using System.Text;
using System.Text.Json;
using ConcurrencySandbox.Api.Streaming;
using ConcurrencySandbox.Experiments.Streaming;
using ConcurrencySandbox.LoadTests.Cli;
using ConcurrencySandbox.LoadTests.Hosting;
using ConcurrencySandbox.LoadTests.Reports;

namespace ConcurrencySandbox.LoadTests.Experiments;

/// <summary>
/// Seed 001: the same stream (N clients, one message each per interval) from a fresh API per implementation; the
/// clients run here and check every message, the API process is what is measured, once a second.
/// </summary>
public static class StreamingExperiment
{
    public const string Name = "streaming";

    /// <summary>Seed 001 (2011): pooled (SAEA) heap "around half the size", process memory 15 MB less, 310,188 allocations (27 % of garbage) gone.</summary>
    public const double Seed001PooledHeapShare = 0.5;
    public const double Seed001ProcessMemorySavedMb = 15;
    public const long Seed001AllocationsGone = 310_188;

    /// <summary>The pooled variants should allocate at most this share of allocating's bytes per message.</summary>
    public const double PooledAllocationShare = 0.1;

    public const double LatenessP99LimitMs = 20;

    private static readonly JsonSerializerOptions Json = new(JsonSerializerDefaults.Web);

    public static async Task<int> MainAsync(string[] args, TextWriter console, TextWriter error, CancellationToken cancellationToken)
    {
        StreamingLoad load;
        string profile;
        string folder;
        try
        {
            (load, profile, folder) = Parse(args);
        }
        catch (UsageException exception)
        {
            await error.WriteLineAsync($"error: {exception.Message}");
            return CommandLine.ExitUsage;
        }

        console.WriteLine($"== {Name}: {load.Clients} clients {load.ConnectIntervalMs} ms apart, {load.MessageBytes} B every {load.IntervalMs} ms ({load.MessagesPerSecond:0} messages/s) for {load.Duration.TotalSeconds:0} s per implementation");
        var results = new List<(string Implementation, StreamingResult Result)>();
        foreach (var implementation in StreamingImplementations.Names)
        {
            results.Add((implementation, await RunVariantAsync(implementation, load, console, cancellationToken)));
        }

        var (comparisons, verdict, passed) = Assess(results);
        Directory.CreateDirectory(folder);
        await File.WriteAllTextAsync(Path.Combine(folder, "summary.md"), Summary(load, profile, results, comparisons, verdict), cancellationToken);
        await File.WriteAllTextAsync(Path.Combine(folder, "samples.csv"), SamplesCsv(results), cancellationToken);
        console.WriteLine($"== {Name}: {verdict}");
        console.WriteLine($"report: {Path.GetFullPath(folder)}");
        return passed ? CommandLine.ExitOk : CommandLine.ExitThresholdFailed;
    }

    public static async Task<StreamingResult> RunVariantAsync(string implementation, StreamingLoad load, TextWriter console, CancellationToken cancellationToken)
    {
        var port = FreeLoopbackPort();
        var environment = new Dictionary<string, string>
        {
            ["Streaming__Port"] = port.ToString(CultureInfo.InvariantCulture),
            ["Streaming__Implementation"] = implementation,
            ["Streaming__MessageBytes"] = load.MessageBytes.ToString(CultureInfo.InvariantCulture),
            ["Streaming__IntervalMs"] = load.IntervalMs.ToString(CultureInfo.InvariantCulture),
            ["Streaming__MaxClients"] = load.Clients.ToString(CultureInfo.InvariantCulture),
        };
        await using var api = await ApiProcess.StartAsync(new ApiLaunch(environment), cancellationToken);
        using var http = new HttpClient { BaseAddress = api.BaseAddress, Timeout = TimeSpan.FromSeconds(30) };
        console.WriteLine($"-- {Name}/{implementation}: {load.Clients} TCP clients on 127.0.0.1:{port}, API {api.BaseAddress}");
        return await StreamingRun.RunAsync(
            new IPEndPoint(IPAddress.Loopback, port),
            load,
            token => SampleAsync(http, token),
            (sample, clients) => console.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"{Name}/{implementation} t={sample.ElapsedSeconds,5:0}s clients={sample.ConnectedClients} sent={sample.MessagesSent} delivered={clients.Delivered} lost={clients.Lost} corrupt={clients.Corrupt} dropped={sample.DroppedSlowClients} lateness p99={sample.SendLatenessP99Ms:0.#}ms heap={sample.HeapSizeBytes / 1e6:0.0}MB threads={sample.OsThreads}")),
            cancellationToken);
    }

    private static async Task<StreamingSample> SampleAsync(HttpClient http, CancellationToken cancellationToken)
    {
        var status = await http.GetFromJsonAsync<StreamingStatus>("/api/streaming", Json, cancellationToken)
            ?? throw new InvalidOperationException("GET /api/streaming answered null");
        if (status.Server is not { } server || status.Process is not { } process)
        {
            throw new UsageException("the API child's streaming server is not running (GET /api/streaming says enabled=false)");
        }

        return new StreamingSample(
            0,
            server.ConnectedClients,
            server.MessagesSent,
            server.DroppedSlowClients,
            server.SendLatenessP50Ms,
            server.SendLatenessP99Ms,
            server.SendLatenessBuckets,
            process.AllocatedBytes,
            process.Gen0Collections,
            process.Gen1Collections,
            process.Gen2Collections,
            process.CpuTimeMs,
            process.HeapSizeBytes,
            process.WorkingSetBytes,
            process.OsThreads);
    }

    public static (IReadOnlyList<(string Figure, string Seed, string Today)> Comparisons, string Verdict, bool Passed) Assess(
        IReadOnlyList<(string Implementation, StreamingResult Result)> results)
    {
        var byName = results.ToDictionary(r => r.Implementation, r => r.Result);
        if (!byName.TryGetValue("allocating", out var allocating) || allocating.NetAllocatedBytesPerMessage <= 0)
        {
            return ([], "Not assessed: the allocating variant sent no messages in its steady state.", false);
        }

        var failures = results
            .Where(r => r.Result.Clients.Lost + r.Result.Clients.Corrupt + r.Result.Clients.OutOfOrder > 0 || r.Result.SendLatenessP99Ms > LatenessP99LimitMs)
            .Select(r => $"{r.Implementation} lost {r.Result.Clients.Lost}, corrupt {r.Result.Clients.Corrupt}, out of order {r.Result.Clients.OutOfOrder}, steady send lateness p99 {r.Result.SendLatenessP99Ms:0.#} ms")
            .ToList();
        var pooled = results.Where(r => r.Implementation != "allocating").ToList();
        var shares = pooled.Select(r => (r.Implementation, Share: r.Result.NetAllocatedBytesPerMessage / allocating.NetAllocatedBytesPerMessage)).ToList();
        List<(string, string, string)> comparisons =
        [
            ("heap, pooled vs allocation-heavy", $"about {Seed001PooledHeapShare * 100:0} % (\"around half the size\")",
                string.Join("; ", pooled.Select(r => $"{r.Implementation} {r.Result.HeapMeanBytes / allocating.HeapMeanBytes * 100:0} % (mean {r.Result.HeapMeanBytes / 1e6:0.0} MB vs {allocating.HeapMeanBytes / 1e6:0.0} MB)"))),
            ("process memory saved by pooling", $"{Seed001ProcessMemorySavedMb:0} MB",
                string.Join("; ", pooled.Select(r => $"{r.Implementation} {(allocating.WorkingSetMeanBytes - r.Result.WorkingSetMeanBytes) / 1e6:0.0} MB (working set mean {r.Result.WorkingSetMeanBytes / 1e6:0.0} MB vs {allocating.WorkingSetMeanBytes / 1e6:0.0} MB)"))),
            ("allocations removed by pooling", $"{Seed001AllocationsGone:N0} allocations, 27 % of all garbage (5 min)",
                string.Join("; ", shares.Select(s => $"{s.Implementation} allocates {s.Share * 100:0.#} % of allocating's bytes per message ({byName[s.Implementation].NetAllocatedBytesPerMessage:0.#} B vs {allocating.NetAllocatedBytesPerMessage:0.#} B, net of the idle process)"))),
            ("threads, pooled vs allocation-heavy", "fewer",
                string.Join("; ", results.Select(r => $"{r.Implementation} mean {r.Result.OsThreadsMean:0.#}, peak {r.Result.OsThreadsPeak}"))),
            ("CPU, pooled vs allocation-heavy", "less",
                string.Join("; ", results.Select(r => $"{r.Implementation} {r.Result.NetCpuMicrosecondsPerMessage:0.#} µs per message net of idle ({r.Result.CpuMicrosecondsPerMessage:0.#} µs all in)"))),
        ];
        var effect = shares.All(s => s.Share <= PooledAllocationShare)
            ? $"Reproduced, and bigger: {string.Join(" and ", shares.Select(s => $"{s.Implementation} allocates {s.Share * 100:0.#} %"))} of allocating's bytes per message ({allocating.NetAllocatedBytesPerMessage:0} B net of the idle process), at most {PooledAllocationShare * 100:0} % as required"
            : $"Not reproduced as strongly as required: {string.Join(" and ", shares.Select(s => $"{s.Implementation} allocates {s.Share * 100:0.#} %"))} of allocating's bytes per message ({allocating.NetAllocatedBytesPerMessage:0} B net of the idle process), above the {PooledAllocationShare * 100:0} % limit";
        var delivery = failures.Count == 0
            ? $"; every variant delivered every message intact and in order with send lateness p99 within {LatenessP99LimitMs:0} ms."
            : $"; delivery or timing failed: {string.Join("; ", failures)}.";
        return (comparisons, effect + delivery, failures.Count == 0 && shares.All(s => s.Share <= PooledAllocationShare));
    }

    private static (StreamingLoad Load, string Profile, string Folder) Parse(string[] args)
    {
        var values = new Dictionary<string, string>();
        for (var i = 0; i < args.Length; i += 2)
        {
            if (!args[i].StartsWith("--", StringComparison.Ordinal) || i + 1 >= args.Length)
            {
                throw new UsageException($"expected --option value pairs, got '{args[i]}'");
            }

            values[args[i]] = args[i + 1];
        }

        foreach (var unknown in values.Keys.Except(["--clients", "--connect-interval-ms", "--message-bytes", "--interval-ms", "--profile", "--out"]))
        {
            throw new UsageException($"unknown option '{unknown}' for {Name}");
        }

        var profile = values.GetValueOrDefault("--profile", "quick");
        var (duration, idle) = profile switch
        {
            "quick" => (TimeSpan.FromSeconds(60), TimeSpan.FromSeconds(10)),
            "seed001" => (TimeSpan.FromMinutes(5), TimeSpan.FromSeconds(10)),
            "smoke" => (TimeSpan.FromSeconds(4), TimeSpan.FromSeconds(2)),
            _ => throw new UsageException($"unknown profile '{profile}' for {Name} (expected quick, seed001 or smoke)"),
        };
        var seed = StreamingLoad.Seed001;
        var load = new StreamingLoad(
            Integer(values, "--clients", seed.Clients, 1, 100_000),
            Integer(values, "--connect-interval-ms", seed.ConnectIntervalMs, 0, 60_000),
            Integer(values, "--message-bytes", seed.MessageBytes, StreamProtocol.MinMessageBytes, StreamProtocol.MaxMessageBytes),
            Integer(values, "--interval-ms", seed.IntervalMs, 1, 60_000),
            duration,
            idle);
        return (load, profile, values.GetValueOrDefault("--out", Path.Combine("reports", $"{DateTime.Now:yyyyMMdd-HHmmss}-{Name}")));
    }

    private static int Integer(Dictionary<string, string> values, string option, int defaultValue, int min, int max)
    {
        if (!values.TryGetValue(option, out var text))
        {
            return defaultValue;
        }

        return int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out var value) && value >= min && value <= max
            ? value
            : throw new UsageException($"{option} must be an integer from {min} to {max}, got '{text}'");
    }

    private static int FreeLoopbackPort()
    {
        using var probe = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        probe.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        return ((IPEndPoint)probe.LocalEndPoint!).Port;
    }

    private static string Summary(
        StreamingLoad load, string profile, IReadOnlyList<(string Implementation, StreamingResult Result)> results,
        IReadOnlyList<(string Figure, string Seed, string Today)> comparisons, string verdict)
    {
        var machine = MachineFacts.Current();
        var md = new StringBuilder();
        md.AppendLine(CultureInfo.InvariantCulture, $"# {Name} (seed 001), profile {profile}");
        md.AppendLine();
        md.AppendLine(CultureInfo.InvariantCulture, $"{load.Clients} clients {load.ConnectIntervalMs} ms apart, {load.MessageBytes} B every {load.IntervalMs} ms ({load.MessagesPerSecond:0} messages/s), {load.Duration.TotalSeconds:0} s per implementation, a fresh API process each. " +
            $"Machine: {machine.CpuModel}, {machine.LogicalCores} logical cores, {machine.Runtime}, {machine.Os}. Per-message figures are over the steady state (all clients connected); \"net\" subtracts what the same process allocated or burned per second while idle after the clients left.");
        md.AppendLine();
        md.AppendLine(CultureInfo.InvariantCulture, $"**Verdict.** {verdict}");
        md.AppendLine();
        md.AppendLine("| implementation | delivered | lost | corrupt | out of order | dropped | send lateness p50 / p99 ms (steady) | send lateness p99 ms (whole run) | arrival lateness p99 ms | allocated B/message: net of idle / all in | gen0 / gen1 / gen2 | heap mean / peak MB | working set mean / peak MB | OS threads mean / peak | CPU µs/message: net / all in |");
        md.AppendLine("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        foreach (var (implementation, r) in results)
        {
            md.AppendLine(CultureInfo.InvariantCulture,
                $"| {implementation} | {r.Clients.Delivered} | {r.Clients.Lost} | {r.Clients.Corrupt} | {r.Clients.OutOfOrder} | {r.DroppedSlowClients} | {r.SendLatenessP50Ms:0.0} / {r.SendLatenessP99Ms:0.0} | {r.SendLatenessP99MsWholeRun:0.0} | {r.Clients.LatenessP99Ms:0.0} | {r.NetAllocatedBytesPerMessage:0.#} / {r.AllocatedBytesPerMessage:0.#} | {r.Gen0Collections} / {r.Gen1Collections} / {r.Gen2Collections} | {r.HeapMeanBytes / 1e6:0.0} / {r.HeapPeakBytes / 1e6:0.0} | {r.WorkingSetMeanBytes / 1e6:0.0} / {r.WorkingSetPeakBytes / 1e6:0.0} | {r.OsThreadsMean:0.#} / {r.OsThreadsPeak} | {r.NetCpuMicrosecondsPerMessage:0.#} / {r.CpuMicrosecondsPerMessage:0.#} |");
        }

        md.AppendLine();
        md.AppendLine("| figure | seed 001 (2011, .NET 4, F#) | today |");
        md.AppendLine("|---|---|---|");
        foreach (var (figure, seed, today) in comparisons)
        {
            md.AppendLine(CultureInfo.InvariantCulture, $"| {figure} | {seed} | {today} |");
        }

        return md.ToString();
    }

    private static string SamplesCsv(IReadOnlyList<(string Implementation, StreamingResult Result)> results)
    {
        var csv = new StringBuilder("implementation,elapsed_s,clients,messages_sent,dropped,send_lateness_p50_ms,send_lateness_p99_ms,allocated_bytes,gen0,gen1,gen2,cpu_ms,heap_bytes,working_set_bytes,os_threads\n");
        foreach (var (implementation, result) in results)
        {
            foreach (var s in result.Samples)
            {
                csv.AppendLine(CultureInfo.InvariantCulture,
                    $"{implementation},{s.ElapsedSeconds:0.###},{s.ConnectedClients},{s.MessagesSent},{s.DroppedSlowClients},{s.SendLatenessP50Ms:0.###},{s.SendLatenessP99Ms:0.###},{s.AllocatedBytes},{s.Gen0Collections},{s.Gen1Collections},{s.Gen2Collections},{s.CpuTimeMs:0.###},{s.HeapSizeBytes},{s.WorkingSetBytes},{s.OsThreads}");
            }
        }

        return csv.ToString();
    }
}
