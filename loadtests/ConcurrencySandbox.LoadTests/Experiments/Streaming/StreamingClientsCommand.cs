using System.CommandLine;
using System.Diagnostics;
using System.Net;
using System.Runtime.InteropServices;
using ConcurrencySandbox.Contracts.Streaming;
using ConcurrencySandbox.Experiments.Streaming;

namespace ConcurrencySandbox.LoadTests.Experiments.Streaming;

/// <summary>What one validating client process runs: how many clients, on which loopback port, how far apart, and for how long at most.</summary>
/// <param name="ParentProcessId">The runner that started it: the clients stop once it is gone.</param>
internal sealed record StreamingClientsPlan(int Port, int Clients, int ConnectIntervalMs, TimeSpan MaxDuration, TimeSpan ReportInterval, int? ParentProcessId);

/// <summary>
/// <c>streaming-clients</c>: the validating streaming clients as a process of their own, so the load generator does not
/// share a process (or, pinned, the cpus) with the server it measures. It connects the clients to the loopback port,
/// checks every frame (sequence, size, checksum and payload, lateness), and writes a <see cref="StreamingClientsReading"/>
/// line to stdout at once, every report interval and a final one when it stops (SIGTERM, the time limit, or its parent
/// gone). The runner starts it through <see cref="StreamingClientsProcess"/>; it is not meant to be typed by hand. The
/// command itself is registered by the runner's command line (Cli), which owns the exit codes.
/// </summary>
internal static class StreamingClientsCommand
{
    public const string Name = "streaming-clients";

    private static readonly Option<int> PortOption = new("--port") { Description = "The streaming server's loopback port (1..65535).", Required = true };
    private static readonly Option<int> ClientsOption = new("--clients") { Description = "Clients to connect (1..100000).", Required = true };
    private static readonly Option<int> ConnectIntervalMsOption = new("--connect-interval-ms") { Description = "Milliseconds between two clients connecting (0..60000).", DefaultValueFactory = _ => 0 };
    private const int MaxSeconds = 86_400;
    private static readonly Option<int> MaxSecondsOption = new("--max-seconds") { Description = "The clients stop by themselves after this many seconds (1..86400).", DefaultValueFactory = _ => 600 };
    private static readonly Option<int> ReportMsOption = new("--report-ms") { Description = "Milliseconds between two report lines (50..60000).", DefaultValueFactory = _ => 500 };
    private static readonly Option<int?> ParentPidOption = new("--parent-pid") { Description = "Stop once the process with this pid is gone." };

    public const string Description = "The streaming experiment's validating clients as their own process (started by the runner): connect, check every frame, report JSON lines.";

    public static IReadOnlyList<Option> Options => [PortOption, ClientsOption, ConnectIntervalMsOption, MaxSecondsOption, ReportMsOption, ParentPidOption];

    /// <summary>The command line of a process that runs <paramref name="plan"/>.</summary>
    public static IReadOnlyList<string> ArgumentsOf(StreamingClientsPlan plan) =>
    [
        Name,
        PortOption.Name, Text(plan.Port),
        ClientsOption.Name, Text(plan.Clients),
        ConnectIntervalMsOption.Name, Text(plan.ConnectIntervalMs),
        MaxSecondsOption.Name, Text((int)Math.Ceiling(Math.Min(plan.MaxDuration.TotalSeconds, MaxSeconds))),
        ReportMsOption.Name, Text((int)plan.ReportInterval.TotalMilliseconds),
        .. plan.ParentProcessId is { } parent ? new[] { ParentPidOption.Name, Text(parent) } : Array.Empty<string>(),
    ];

    /// <summary>Runs the clients until cancelled, the time limit or the parent's end, writing a report line at once, every interval and at the end.</summary>
    public static async Task RunAsync(StreamingClientsPlan plan, TextWriter output, CancellationToken cancellationToken)
    {
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        stop.CancelAfter(plan.MaxDuration);
        using var terminate = PosixSignalRegistration.Create(PosixSignal.SIGTERM, signal =>
        {
            signal.Cancel = true;
            stop.Cancel();
        });
        var tally = new StreamTally();
        var clock = Stopwatch.StartNew();
        var clients = StreamingClient.RunManyAsync(new IPEndPoint(IPAddress.Loopback, plan.Port), plan.Clients, plan.ConnectIntervalMs, tally, stop.Token);
        await output.WriteLineAsync(Reading(tally, clock, final: false).ToLine());
        using var timer = new PeriodicTimer(plan.ReportInterval);
        try
        {
            while (await timer.WaitForNextTickAsync(stop.Token) && ParentAlive(plan.ParentProcessId))
            {
                await output.WriteLineAsync(Reading(tally, clock, final: false).ToLine());
            }
        }
        catch (OperationCanceledException) when (stop.IsCancellationRequested)
        {
        }

        await stop.CancelAsync();
        await clients;
        await output.WriteLineAsync(Reading(tally, clock, final: true).ToLine());
        await output.FlushAsync(CancellationToken.None);
    }

    /// <summary>The plan the options ask for; a <see cref="UsageException"/> naming the option and its range otherwise.</summary>
    public static StreamingClientsPlan PlanOf(OptionValues values) => new(
        values.InRange(PortOption, 1, 65_535),
        values.InRange(ClientsOption, 1, CapacityRamp.MaxClients),
        values.InRange(ConnectIntervalMsOption, 0, 60_000),
        TimeSpan.FromSeconds(values.InRange(MaxSecondsOption, 1, MaxSeconds)),
        TimeSpan.FromMilliseconds(values.InRange(ReportMsOption, 50, 60_000)),
        values.Get(ParentPidOption));

    private static StreamingClientsReading Reading(StreamTally tally, Stopwatch clock, bool final)
    {
        var counts = tally.Counts();
        return new StreamingClientsReading(
            clock.Elapsed.TotalSeconds,
            counts.Connected,
            counts.Delivered,
            counts.Lost,
            counts.Corrupt,
            counts.OutOfOrder,
            counts.ClosedByServer,
            counts.Failed,
            tally.Lateness.NonEmptyBuckets(),
            Environment.CpuUsage.TotalTime.TotalMilliseconds,
            Environment.ProcessorCount,
            final);
    }

    private static bool ParentAlive(int? parentProcessId)
    {
        if (parentProcessId is not { } pid)
        {
            return true;
        }

        try
        {
            using var parent = Process.GetProcessById(pid);
            return !parent.HasExited;
        }
        catch (ArgumentException)
        {
            return false;
        }
    }

    private static string Text(int value) => value.ToString(System.Globalization.CultureInfo.InvariantCulture);
}
