using System.Globalization;
using ConcurrencySandbox.Contracts.Telemetry;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>
/// A step at which a service broke, as <c>scripts/diagnose-targets.sh</c> recorded it in a quiet run (the step's rows of
/// its summary.json, curves.csv and telemetry.csv): the counter samples, the reporting intervals, the run's fastest
/// request, every thread-pool adjustment and the stack sample's groups. The send slices were not kept, so the spell
/// holds up no request here.
/// </summary>
public sealed record RecordedBreak(VariantResult Result, IReadOnlyList<AdjustmentMark> Marks, BlockingSites Sites)
{
    /// <summary>
    /// InlinedHelper at 32 users (quiet run on 9e3be7c, 2026-11-27 07:38 UTC): cooperative-blocking injections took the
    /// pool to the 32 threads the load needed by the first counter sample, queue empty at every sample, while that
    /// second's p99 was 507 ms against a fastest request of 195 ms; hill climbing then went on to 44 threads.
    /// </summary>
    public static RecordedBreak InlinedHelperAt32Users { get; } = Of(
        users: 32, requests: 441, fastestMs: 195.199, p99Ms: 507.135,
        samples: [(0.807, 32, 0), (1.818, 34, 0), (2.822, 44, 0), (3.898, 44, 0), (4.866, 44, 0)],
        intervals: [(0.999, 63, 381.91, 507.391), (2, 160, 212.729, 255.103), (3.001, 160, 201.431, 208.639), (3.225, 58, 201.677, 205.183)],
        adjustments: "0.099 C 19; 0.301 C 21 23 24 25 27 29 30; 0.606 C 31 30 29 22 21 17; 0.807 C 19 21 23 24 25 27 29 31 32 19 17 19 21 23 24 25 26 27 29 30 31 32; 1.113 C 33 17; 1.314 C 19 21 22 23 24 26 27 28 30 32 33 17; 1.314 H 34; 1.818 H 51; 2.621 H 34; 3.122 H 33",
        new BlockingSites(44, 52,
        [
            new BlockingSite("the lambda in Program (top-level statements) -> Task.InternalWait", 37, InUserCode: true, InRequest: true,
                new BlockingCall("Blocking.DoBlocking", BlockingPrimitive.Result, null, "GET /orders/{id:int}", "the lambda in Program (top-level statements)", "the lambda in Program (top-level statements)", null)),
            new BlockingSite(BlockingSites.NoUserCode, 7, InUserCode: false),
        ]));

    /// <summary>
    /// The sample service at 32 users (quiet run on c09ec2e, 2026-11-27 07:22 UTC): the runtime injected for the blocked
    /// .Result threads and hill climbing added more; the pool had 32 threads with 2 items queued, then 51, for a need of
    /// 32, while the first two seconds' p99 was 512 and 255 ms against a fastest request of 96 ms.
    /// </summary>
    public static RecordedBreak SampleServiceAt32Users { get; } = Of(
        users: 32, requests: 735, fastestMs: 96.383, p99Ms: 511.487,
        samples: [(0.913, 32, 2), (1.918, 51, 0), (2.926, 51, 0), (3.997, 51, 0)],
        intervals: [(1, 63, 385.064, 511.999), (1.997, 320, 117.703, 255.487), (2.997, 320, 102.722, 107.583), (3.069, 32, 101.36, 101.631)],
        adjustments: "0.298 C 30; 0.611 C 29 30 31 30 29; 0.611 H 27; 0.812 C 29 30 31 32 31 30 27; 0.912 C 29 31 32; 1.113 C 33 27; 1.214 H 26; 1.214 C 27 28 30 32 33 29 28 27 26 28 29 30 31 32 33 31 30 29 28 27 28 29 30 32 33 32; 1.314 C 33 26; 1.314 H 43; 1.716 H 51; 2.119 H 34; 2.724 H 54",
        new BlockingSites(51, 59,
        [
            new BlockingSite("Orders.Get -> Task.InternalWait", 34, InUserCode: true, InRequest: true,
                new BlockingCall("Orders.Get", BlockingPrimitive.Result, null, "GET /orders/{id:int}", "Orders.Get", null, null)),
            new BlockingSite(BlockingSites.NoUserCode, 17, InUserCode: false),
        ]));

    /// <summary>The observer's diagnosis of the step.</summary>
    public StarvationDiagnosis Diagnose() => VariantObserver.Diagnose(Result, Sites, Marks)!;

    /// <summary>What the observer saw during the step, with <paramref name="diagnosis"/>: what <see cref="Running.CapacityFinding.CauseOf"/> reads.</summary>
    public VariantObservation Observed(StarvationDiagnosis diagnosis) => new("pid 1", Result.Telemetry.Count, 1, Marks, Sites, null, diagnosis, null);

    /// <param name="samples">The counter samples: seconds since the step began, the pool's threads, the items queued.</param>
    /// <param name="intervals">The reporting intervals: their end, requests answered, mean and p99.</param>
    /// <param name="adjustments">"0.301 C 21 23; 1.314 H 34": at each time the pool's new thread counts in order, C a CooperativeBlocking adjustment, H a hill-climbing move.</param>
    internal static RecordedBreak Of(int users, long requests, double fastestMs, double p99Ms, (double Seconds, int Threads, long Queued)[] samples,
        (double Seconds, long Requests, double MeanMs, double P99Ms)[] intervals, string adjustments, BlockingSites sites)
    {
        var key = new VariantKey(FormattableString.Invariant($"{users}-users"));
        var result = new VariantResult(key, "/orders/1", "users", intervals[^1].Seconds,
            [.. intervals.Select(i => new IntervalRow(key, i.Seconds, "users", users, i.Requests, TestStats.Uniform(i.Requests, i.MeanMs, p99Ms: i.P99Ms)))],
            [.. samples.Select(s => new TelemetryRow(key, s.Seconds, default(RuntimeSnapshot) with { ThreadPool = new ThreadPoolTelemetry(s.Threads, s.Queued, 0, 0, 0) }))],
            TestStats.Uniform(requests, fastestMs, p99Ms: p99Ms));
        var marks = adjustments.Split("; ")
            .Select(run => run.Split(' '))
            .SelectMany(run => run.Skip(2).Select(threads => new AdjustmentMark(
                double.Parse(run[0], CultureInfo.InvariantCulture),
                int.Parse(threads, CultureInfo.InvariantCulture),
                run[1] == "C" ? PoolSample.CooperativeBlockingReason : "ClimbingMove")))
            .ToList();
        return new RecordedBreak(result, marks, sites);
    }
}
