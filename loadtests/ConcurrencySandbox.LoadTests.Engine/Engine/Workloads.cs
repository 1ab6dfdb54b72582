using System.Diagnostics;

namespace ConcurrencySandbox.LoadTests.Engine;

/// <summary>Sends one request and says how it ended. Throws only when <c>cancellationToken</c> is cancelled.</summary>
public delegate ValueTask<RequestOutcome> SendRequest(CancellationToken cancellationToken);

/// <summary>A way of putting load on a scenario; records every outcome into the recorder.</summary>
public interface IWorkload
{
    /// <summary>What <see cref="CurrentLoad"/> counts: "users", "rate" (requests per second) or "burst".</summary>
    string LoadUnit { get; }

    /// <summary>The load applied between two moments since the run began (users or arrivals per second at the middle; a burst's size).</summary>
    double LoadBetween(TimeSpan from, TimeSpan to);

    /// <summary>
    /// Which of the shape's simulations ran between two moments (the one at the middle, <see cref="LoadShape.StepAt"/>): a
    /// step ends where it changes as well as where <see cref="LoadBetween"/> does. A workload without a shape runs one.
    /// </summary>
    int StepBetween(TimeSpan from, TimeSpan to) => 0;

    Task RunAsync(SendRequest send, LatencyRecorder recorder, CancellationToken cancellationToken);

    /// <summary>The shape's load: closed users or an open arrival rate (at most <paramref name="maxInFlight"/> outstanding), the whole of it or a load agent's <paramref name="segment"/>.</summary>
    static IWorkload Of(LoadShape shape, int maxInFlight, LoadSegment? segment = null) =>
        shape.IsOpen ? new OpenModel(shape, maxInFlight, segment: segment) : new ClosedModel(shape, segment);
}

/// <summary>
/// Closed model: each user loops request -> response; the number of users follows the shape.
/// When the shape ends, users stop starting requests and the ones in flight finish (or time out). With a
/// <paramref name="segment"/> (a load agent's share), it runs that share of the shape's users.
/// </summary>
internal sealed class ClosedModel(LoadShape shape, LoadSegment? segment = null) : IWorkload
{
    private readonly LoadSegment _segment = segment ?? LoadSegment.Whole;

    private static readonly TimeSpan ControlPeriod = TimeSpan.FromMilliseconds(50);

    public string LoadUnit => "users";

    public double LoadBetween(TimeSpan from, TimeSpan to) => _segment.UsersOf(shape.UsersAt((from + to) / 2));

    public int StepBetween(TimeSpan from, TimeSpan to) => shape.StepAt((from + to) / 2);

    public async Task RunAsync(SendRequest send, LatencyRecorder recorder, CancellationToken cancellationToken)
    {
        var startTimestamp = Stopwatch.GetTimestamp();
        var users = new Stack<(Task Loop, CancellationTokenSource Stop)>();
        try
        {
            for (var elapsed = TimeSpan.Zero; elapsed < shape.Duration; elapsed = Stopwatch.GetElapsedTime(startTimestamp))
            {
                var target = _segment.UsersOf(shape.UsersAt(elapsed));
                while (users.Count < target)
                {
                    var stop = new CancellationTokenSource();
                    users.Push((Task.Run(() => UserLoopAsync(send, recorder, stop.Token, cancellationToken), CancellationToken.None), stop));
                }
                while (users.Count > target)
                {
                    users.Pop().Stop.Cancel();
                }
                await Task.Delay(ControlPeriod, cancellationToken);
            }
        }
        finally
        {
            foreach (var (_, stop) in users)
            {
                stop.Cancel();
            }
            await Task.WhenAll(users.Select(u => u.Loop));
        }
    }

    private static async Task UserLoopAsync(SendRequest send, LatencyRecorder recorder, CancellationToken stop, CancellationToken cancellationToken)
    {
        while (!stop.IsCancellationRequested && !cancellationToken.IsCancellationRequested)
        {
            var started = Stopwatch.GetTimestamp();
            var outcome = await send(cancellationToken);
            recorder.Record(Stopwatch.GetElapsedTime(started).TotalMilliseconds, outcome);
        }
    }
}

/// <summary>
/// Open model: request k is due at the shape's intended start time, whether or not earlier requests have answered,
/// and its latency is measured from that intended start, so a stalled server cannot hide its stall (no coordinated
/// omission). At most <paramref name="maxInFlight"/> requests are outstanding; a request that waits for a slot still
/// counts its waiting time. Requests still unsent when the shape ends are recorded as connection errors ("not sent").
/// With a <paramref name="segment"/> (a load agent's share), it sends every N-th of the shape's requests from its index.
/// </summary>
internal sealed class OpenModel(LoadShape shape, int maxInFlight, TimeProvider? clock = null, LoadSegment? segment = null) : IWorkload
{
    private readonly LoadSegment _segment = segment ?? LoadSegment.Whole;
    private static readonly RequestOutcome Unsent = RequestOutcome.Failed("not sent: every in-flight slot stayed busy until the load ended");

    // The schedule and the latencies follow this clock (tests pass a fake one); the wait for a free slot is real time.
    private readonly TimeProvider _clock = clock ?? TimeProvider.System;
    private long _startTimestamp;

    public string LoadUnit => "rate";

    public double LoadBetween(TimeSpan from, TimeSpan to) => _segment.RateOf(shape.RateAt((from + to) / 2));

    public int StepBetween(TimeSpan from, TimeSpan to) => shape.StepAt((from + to) / 2);

    /// <summary>How many due requests were never sent because every slot stayed busy until the shape ended.</summary>
    public long NotSent { get; private set; }

    public async Task RunAsync(SendRequest send, LatencyRecorder recorder, CancellationToken cancellationToken)
    {
        using var slots = new SemaphoreSlim(maxInFlight, maxInFlight);
        _startTimestamp = _clock.GetTimestamp();
        long n = 0;
        try
        {
            for (var intended = shape.IntendedStart(_segment.ArrivalIndex(0)); intended is { } due; intended = shape.IntendedStart(_segment.ArrivalIndex(++n)))
            {
                var wait = due - _clock.GetElapsedTime(_startTimestamp);
                if (wait > TimeSpan.Zero)
                {
                    await Task.Delay(wait, _clock, cancellationToken);
                }
                var untilEnd = shape.Duration - _clock.GetElapsedTime(_startTimestamp);
                if (!await slots.WaitAsync(untilEnd > TimeSpan.Zero ? untilEnd : TimeSpan.Zero, cancellationToken))
                {
                    RecordUnsent(recorder, n);
                    break;
                }
                _ = SendAndReleaseAsync(send, recorder, due, slots, cancellationToken);
            }
        }
        finally
        {
            // Drain: holding every slot means every request in flight has finished.
            for (var i = 0; i < maxInFlight; i++)
            {
                await slots.WaitAsync(CancellationToken.None);
            }
        }
    }

    private void RecordUnsent(LatencyRecorder recorder, long firstUnsent)
    {
        var endMs = shape.Duration.TotalMilliseconds;
        for (var k = firstUnsent; shape.IntendedStart(_segment.ArrivalIndex(k)) is { } due; k++)
        {
            recorder.Record(endMs - due.TotalMilliseconds, Unsent);
            NotSent++;
        }
    }

    private async Task SendAndReleaseAsync(SendRequest send, LatencyRecorder recorder, TimeSpan intendedStart, SemaphoreSlim slots, CancellationToken cancellationToken)
    {
        try
        {
            // A timer may fire a little before the arrival is due (its clock ticks in milliseconds): a request sent early
            // is timed from when it was sent, so no latency (nor a timeout's lower bound) is ever shorter than the request.
            var sentAt = _clock.GetElapsedTime(_startTimestamp);
            var outcome = await send(cancellationToken);
            var latency = _clock.GetElapsedTime(_startTimestamp) - (sentAt < intendedStart ? sentAt : intendedStart);
            recorder.Record(latency.TotalMilliseconds, outcome);
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            // Ctrl+C: the run is being abandoned; nothing to record.
        }
        finally
        {
            slots.Release();
        }
    }
}

/// <summary>
/// Cold-start burst: <paramref name="copies"/> requests started together; latency measured from the burst's start. Its
/// load is the burst, all of it sent at once, for as long as it lasts: one step, never a curve of the requests still in
/// flight (which fall as the burst is served, and are no load).
/// </summary>
public sealed class Burst(int copies) : IWorkload
{
    public string LoadUnit => "burst";

    public double LoadBetween(TimeSpan from, TimeSpan to) => copies;

    public async Task RunAsync(SendRequest send, LatencyRecorder recorder, CancellationToken cancellationToken)
    {
        var started = Stopwatch.GetTimestamp();
        await Task.WhenAll(Enumerable.Range(0, copies).Select(_ => SendOneAsync()));

        async Task SendOneAsync()
        {
            var outcome = await send(cancellationToken);
            recorder.Record(Stopwatch.GetElapsedTime(started).TotalMilliseconds, outcome);
        }
    }
}
