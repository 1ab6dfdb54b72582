using System.CommandLine;
using System.Globalization;
using ConcurrencySandbox.Contracts.Receive;
using ConcurrencySandbox.Contracts.Seeds;
using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Experiments.Receive;

/// <summary>The receive parameters a user can set on the command line: what one request's receive run does.</summary>
internal sealed record ReceiveSettings(int Messages, int MessageBytes, int IntervalMs)
{
    public static ReceiveSettings Defaults { get; } = new(Messages: 1000, MessageBytes: 128, IntervalMs: 0);
}

/// <summary>A variant's process CPU and allocations per request, read from the API's telemetry history over the run.</summary>
/// <param name="CpuMsPerRequest">Process CPU time (every thread: HTTP, sender, receiver, GC) between the first and the last sample taken while the load ran, per request that ended between them.</param>
internal sealed record ReceiveUsage(double CpuMsPerRequest, double AllocatedBytesPerRequest, double AllocatedBytesPerSecond)
{
    /// <summary>Null when the run has no span to count over (<see cref="Read"/> says why).</summary>
    public static ReceiveUsage? Of(VariantResult result) => Read(result).Usage;

    /// <summary>
    /// The usage over the run's counted span (<see cref="VariantResult.CountedSpanBetween"/>: samples at least a second
    /// apart while it ran, their CPU readings covering the time between them, requests ended), or why there is none.
    /// </summary>
    public static (ReceiveUsage? Usage, string? NotReadBecause) Read(VariantResult result)
    {
        var (span, why) = result.CountedSpanBetween(double.NegativeInfinity, result.ElapsedSeconds);
        return span is null
            ? (null, why)
            : (new ReceiveUsage(span.PerRequest(s => s.Process.CpuTimeMs), span.PerRequest(s => s.GC.TotalAllocatedBytes), span.Growth(s => s.GC.TotalAllocatedBytes) / span.Seconds), null);
    }
}

/// <summary>
/// Seed 002 under load: each request is one receive run of <c>messages</c> over loopback TCP
/// (<c>/api/receive/{variant}</c>), one variant per receive path under the same ramp. CPU per request and the
/// allocation rate come from the API's telemetry history, so they are the whole process's, HTTP included.
/// </summary>
internal sealed class ReceiveExperiment(ReceiveSettings settings) : Experiment
{
    /// <summary>per-call counts as costing more than preallocated when its CPU per request is at least this factor higher.</summary>
    public const double EffectRatio = 1.25;

    private static readonly Option<int> MessagesOption = new("--receive-messages") { Description = "receive: messages one request receives.", DefaultValueFactory = _ => ReceiveSettings.Defaults.Messages };
    private static readonly Option<int> MessageBytesOption = new("--receive-message-bytes") { Description = "receive: bytes per message (at least 8).", DefaultValueFactory = _ => ReceiveSettings.Defaults.MessageBytes };
    private static readonly Option<int> IntervalMsOption = new("--receive-interval-ms") { Description = "receive: the sender's pause between messages (0 = back to back, 1 = sparse).", DefaultValueFactory = _ => ReceiveSettings.Defaults.IntervalMs };

    public static readonly ExperimentDefinition Definition = new("receive", [MessagesOption, MessageBytesOption, IntervalMsOption], Create)
    {
        Description = "Seed 002 (clrzmq Receive): one socket receive with a new message and a spinning timeout per call vs a reused buffer and a blocking wait.",
        Colors = [new("per-call", "#a50f15"), new("allocating", "#fd8d3c"), new("spinning", "#54278f"), new("preallocated", "#08519c")],
    };

    public override string Name => Definition.Name;

    public override string Seed => "002";

    public override int DefaultRounds => RoundsForACi;

    public override TimeSpan MinimumLoad => RampNeeds;

    public override IReadOnlyList<Variant> Variants =>
    [
        .. ReceiveVariant.Names.Select(name => new Variant(
            name,
            new HttpRamp(string.Create(CultureInfo.InvariantCulture, $"/api/receive/{name}?messages={settings.Messages}&messageBytes={settings.MessageBytes}&intervalMs={settings.IntervalMs}")))),
    ];

    public override IReadOnlyList<VariantFigure> FiguresOf(VariantResult result)
    {
        if (ReceiveUsage.Of(result) is not { } usage)
        {
            return [];
        }

        return
        [
            new("CPU per request", usage.CpuMsPerRequest, "ms"),
            new("CPU per receive", usage.CpuMsPerRequest * 1e6 / settings.Messages, "ns"),
            new("allocated per receive", usage.AllocatedBytesPerRequest / settings.Messages, "B"),
            new("allocation rate", usage.AllocatedBytesPerSecond / 1e6, "MB/s"),
        ];
    }

    /// <summary>CPU per receive relative to preallocated's, with seed 002's 13,142 -> 2,697 ticks (4.9 x) beside; allocated bytes per receive.</summary>
    public override IReadOnlyList<EvidenceChart> EvidenceOf(IReadOnlyList<VariantResult> results)
    {
        var preallocated = Find(results, ReceiveVariant.Preallocated.Name)?.Figures.FirstOrDefault(f => f.Name == "CPU per receive")?.Value;
        List<EvidenceChart> charts = [];
        if (preallocated is > 0)
        {
            charts.Add(new EvidenceChart(
                "Process CPU per receive, relative to preallocated (seed 002: per-call 13,142 vs preallocated 2,697 ticks)", "x preallocated",
                [.. results.SelectMany(r => r.Figures.Where(f => f.Name == "CPU per receive").Select(f => new EvidenceValue(r.Key.Label, f.Value / preallocated.Value)))],
                [new EvidenceValue($"seed 002 per-call: {Seed002Figures.CpuRatio:0.0} x", Seed002Figures.CpuRatio), new EvidenceValue("preallocated: 1 x", 1)]));
        }
        if (EvidenceChart.OfFigure("Bytes allocated per receive", "allocated per receive", results, []) is { } allocated)
        {
            charts.Add(allocated);
        }
        return charts;
    }

    public override Finding Assess(IReadOnlyList<VariantResult> results)
    {
        var (perCall, perCallWhy) = UsageOf(results, ReceiveVariant.PerCall);
        var (preallocated, preallocatedWhy) = UsageOf(results, ReceiveVariant.Preallocated);
        if (perCall is null || preallocated is null)
        {
            var why = string.Join("; ", new[] { (Name: ReceiveVariant.PerCall.Name, Why: perCallWhy), (Name: ReceiveVariant.Preallocated.Name, Why: preallocatedWhy) }
                .Where(v => v.Why is not null).Select(v => $"{v.Name}: {v.Why}"));
            return Finding.NotAssessed(
                $"per-call and preallocated both need completed requests and telemetry samples over at least a second while the load ran, their CPU readings covering it ({why}).");
        }

        var ratio = perCall.CpuMsPerRequest / preallocated.CpuMsPerRequest;
        var seedRatio = Seed002Figures.CpuRatio;
        var (perCallNs, preallocatedNs) = (perCall.CpuMsPerRequest * 1e6 / settings.Messages, preallocated.CpuMsPerRequest * 1e6 / settings.Messages);
        List<SeedComparison> comparisons =
        [
            new("CPU per receive, per-call vs preallocated",
                string.Create(CultureInfo.InvariantCulture, $"{Seed002Figures.PerCallCpuTicks:N0} vs {Seed002Figures.PreallocatedCpuTicks:N0} profiler ticks ({seedRatio:0.0} x)"),
                string.Create(CultureInfo.InvariantCulture, $"{perCallNs:N0} vs {preallocatedNs:N0} ns of process CPU under load ({ratio:0.00} x)")),
            new("allocated per receive, per-call vs preallocated", "not measured (the seed profiled the message objects' CPU)",
                string.Create(CultureInfo.InvariantCulture, $"{perCall.AllocatedBytesPerRequest / settings.Messages:N0} vs {preallocated.AllocatedBytesPerRequest / settings.Messages:N0} bytes")),
        ];
        var causes = string.Join(", ", new[] { ReceiveVariant.Allocating, ReceiveVariant.Spinning }
            .Where(v => Find(results, v.Name) is not null)
            .Select(v => (v.Name, Read: UsageOf(results, v)))
            .Select(c => c.Read.Usage is { } usage
                ? string.Create(CultureInfo.InvariantCulture, $"{c.Name} alone {usage.CpuMsPerRequest / preallocated.CpuMsPerRequest:0.00} x")
                : $"{c.Name} not read ({c.Read.NotReadBecause})"));
        var causesText = causes.Length > 0 ? $"; {causes}" : string.Empty;
        var detail = string.Create(
            CultureInfo.InvariantCulture,
            $"under the same ramp per-call used {ratio:0.00} x preallocated's process CPU per request (seed 002: {seedRatio:0.0} x per receive){causesText}; " +
            $"{settings.Messages} messages of {settings.MessageBytes} bytes per request, {settings.IntervalMs} ms apart.");
        var figure = new VerdictFigure("process CPU per request, per-call / preallocated", ratio, EffectRatio, ReproducedAbove: true, "0.00", " x");
        return (ratio >= EffectRatio
            ? new Finding(Outcome.Reproduced, comparisons, detail)
            : new Finding(Outcome.NotReproduced, comparisons, detail + string.Create(CultureInfo.InvariantCulture, $" Below the {EffectRatio:0.00} x that would show the seed's effect."))) with { Figure = figure };
    }

    /// <summary>A variant's usage (<see cref="ReceiveUsage.Read"/>), or why there is none, "not run" among the reasons.</summary>
    private static (ReceiveUsage? Usage, string? NotReadBecause) UsageOf(IReadOnlyList<VariantResult> results, ReceiveVariant variant) =>
        Find(results, variant.Name) is { } result ? ReceiveUsage.Read(result) : (null, "not run");

    private static ReceiveExperiment Create(OptionValues values)
    {
        var messageBytes = values.Positive(MessageBytesOption);
        if (messageBytes < ReceivePlan.SequenceBytes)
        {
            throw new UsageException($"--message-bytes must be at least {ReceivePlan.SequenceBytes} (the sequence number), got {messageBytes}");
        }

        var intervalMs = values.Get(IntervalMsOption);
        if (intervalMs < 0)
        {
            throw new UsageException($"--interval-ms must not be negative, got {intervalMs}");
        }

        return new ReceiveExperiment(new ReceiveSettings(values.Positive(MessagesOption), messageBytes, intervalMs));
    }
}
