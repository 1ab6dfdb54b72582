using System.Globalization;

namespace ConcurrencySandbox.LoadTests.Progress;

/// <summary>
/// The runner watching itself: while a variant's load runs and no interval has been recorded for
/// <see cref="StallIntervals"/> of its intervals (at least <see cref="MinimumStall"/>), it writes one line naming the
/// stall, then, on a thread of its own, where the runner's own threads are blocked (when <paramref name="ownFrames"/> can
/// read them), and one more line when intervals come again. It reads the progress's snapshot on its own timer and
/// writes through the console's queue, so a stalled runner cannot stall it; a tick that finds the previous one still
/// running skips its turn.
/// </summary>
internal sealed class StallWatch : IDisposable
{
    public const int StallIntervals = 5;
    public static readonly TimeSpan MinimumStall = TimeSpan.FromSeconds(5);
    private static readonly TimeSpan Period = TimeSpan.FromSeconds(1);

    private readonly Func<RunState> _state;
    private readonly TextWriter _console;
    private readonly TimeProvider _clock;
    private readonly Func<IReadOnlyList<string>?>? _ownFrames;
    private readonly ITimer _timer;
    private int _checking;
    // The stall last reported: the time of the last progress before it.
    private DateTimeOffset? _reported;

    /// <param name="ownFrames">Where the runner's own threads are blocked, one line per place, or null when that cannot be read.</param>
    public StallWatch(Func<RunState> state, TextWriter console, TimeProvider clock, Func<IReadOnlyList<string>?>? ownFrames)
    {
        _state = state;
        _console = console;
        _clock = clock;
        _ownFrames = ownFrames;
        _timer = clock.CreateTimer(_ => Check(), null, Period, Period);
    }

    /// <summary>The stall lines written so far (each stall is named once).</summary>
    public int Stalls { get; private set; }

    private void Check()
    {
        if (Interlocked.Exchange(ref _checking, 1) == 1)
        {
            return;
        }
        try
        {
            var state = _state();
            if (_reported is { } reported && state.LastProgressAt > reported)
            {
                _reported = null;
                _console.WriteLine($"stall: over, {state.Series} recorded an interval again");
            }
            if (!state.Loading || state.Ended is not null || _reported is not null)
            {
                return;
            }
            var quiet = _clock.GetUtcNow() - state.LastProgressAt;
            var limit = TimeSpan.FromSeconds(Math.Max(StallIntervals * state.IntervalSeconds, MinimumStall.TotalSeconds));
            if (quiet < limit)
            {
                return;
            }
            _reported = state.LastProgressAt;
            Stalls++;
            _console.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"stall: {state.Series} has recorded no interval for {quiet.TotalSeconds:0} s while its load runs (one is due every {state.IntervalSeconds:0.#} s): the runner is not making progress. Ctrl+C stops it and writes the report so far."));
            if (_ownFrames is { } frames)
            {
                new Thread(() => WriteFrames(frames)) { IsBackground = true, Name = "stall frames" }.Start();
            }
        }
        finally
        {
            Volatile.Write(ref _checking, 0);
        }
    }

    private void WriteFrames(Func<IReadOnlyList<string>?> frames)
    {
        var blocked = frames();
        _console.WriteLine(blocked switch
        {
            null => "stall: the runner's own stacks could not be read (no diagnostics channel)",
            [] => "stall: none of the runner's own threads is parked in a blocking call",
            _ => "stall: the runner's own threads wait: " + string.Join("; ", blocked),
        });
    }

    public void Dispose() => _timer.Dispose();
}
