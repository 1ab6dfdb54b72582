using ConcurrencySandbox.Contracts.Statistics;
using ConcurrencySandbox.Contracts.Work;
using ConcurrencySandbox.Experiments.Work;
using ConcurrencySandbox.Platform.Statistics;
using Microsoft.Extensions.Time.Testing;

namespace ConcurrencySandbox.Tests.Work;

/// <summary>
/// The rounds a sweep (and a one-row compare) is measured in, driven by a scripted <see cref="Bench"/>: each run returns
/// scripted seconds and moves a fake clock by as much, so which amount ran when, and how many pairs a budget buys, are
/// counted rather than timed.
/// </summary>
public sealed class MeasurementRoundsTests
{
    /// <summary>Above <see cref="WorkUnit.Compute"/>'s warm-up amount (10^6), so every measured run is told from a warm-up run by its amount.</summary>
    private static readonly long[] Amounts = [10_000_000, 100_000_000, 1_000_000_000];

    /// <summary>A 1 % target <see cref="Noisy"/> never reaches within the budget, so only the budget stops its rows.</summary>
    private static readonly MeasurementPolicy Policy = new(TargetHalfWidthPercent: 1, Budget: TimeSpan.FromSeconds(3), MinimumRepeats: 6);

    [Fact]
    public async Task EveryRowsPairsAreSpreadOverRoundsInSlicesOfTwoPairsAndEveryRowIsInTheFirstRound()
    {
        var bench = new ScriptedBench(Noisy);

        var rows = await bench.MeasureAsync(Amounts, Policy, seed: 1);

        var slices = Slices(bench.MeasuredRuns());
        Assert.All(slices, s => Assert.InRange(s.Pairs, 1, 2 * Comparison.PairsPerRound)); // a row's slice, maybe next to its slice of the following round
        Assert.All(rows, r => Assert.True(r.Repeat > 4 * Comparison.PairsPerRound, $"{r.Amount}: {r.Repeat} pairs")); // so no row fits in one block
        Assert.All(rows, r => Assert.True(slices.Count(s => s.Amount == r.Amount) >= r.Repeat / (2 * Comparison.PairsPerRound)));
        Assert.Equal(Amounts, bench.MeasuredRuns().Take(Amounts.Length * Comparison.PairsPerRound * 2).Select(r => r.Amount).Distinct().Order());
        Assert.All(rows, r => Assert.Equal(StopReason.BudgetSpent, r.Stopped));
    }

    [Fact]
    public async Task EachRowKeepsItsOwnAbBaAlternationAcrossRounds()
    {
        var bench = new ScriptedBench(Noisy);

        await bench.MeasureAsync(Amounts, Policy, seed: 1);

        foreach (var amount in Amounts)
        {
            var firsts = bench.MeasuredRuns().Where(r => r.Amount == amount).Chunk(2).Select(pair => pair[0].Mode).ToList();
            Assert.Equal(firsts.Select((_, pair) => MeasurementPolicy.BFirst(pair) ? RunMode.TaskRun : RunMode.Sync), firsts);
        }
    }

    [Fact]
    public async Task AConvergedRowStopsTakingPairsWhileTheOthersGoOnAndItsCalibrationIsTheOneAfterItsLastRound()
    {
        const long steady = 10_000_000;
        var bench = new ScriptedBench((mode, amount, n) => amount == steady ? Steady(mode) : Noisy(mode, amount, n));

        var rows = await bench.MeasureAsync(Amounts, Policy, seed: 1);

        var converged = rows.Single(r => r.Amount == steady);
        Assert.Equal(StopReason.Converged, converged.Stopped);
        Assert.Equal(Policy.MinimumRepeats, converged.Repeat);
        Assert.Equal(2 * Policy.MinimumRepeats, bench.MeasuredRuns().Count(r => r.Amount == steady));
        var lastSteadyRun = bench.MeasuredRuns().ToList().FindLastIndex(r => r.Amount == steady);
        Assert.Contains(bench.MeasuredRuns().Skip(lastSteadyRun), r => r.Amount != steady);
        Assert.All(rows.Where(r => r.Amount != steady), r => Assert.True(r.Repeat > converged.Repeat));

        // The calibration loop counts its calls here: one before the first round, then one after each round in which a row stopped.
        Assert.All(rows, r => Assert.Equal(1, r.Speed.BeforeSeconds));
        Assert.Equal(2, converged.Speed.AfterSeconds);
        Assert.All(rows.Where(r => r.Amount != steady), r => Assert.True(r.Speed.AfterSeconds > converged.Speed.AfterSeconds));
    }

    [Fact]
    public async Task TheBudgetIsTheWholeSweepsAndBuysAsManyPairsAsFitInIt()
    {
        // Every pair takes 0.02 s on the fake clock, whatever its ratio, so a 3 s budget holds 150 pairs for all rows together.
        var bench = new ScriptedBench(Noisy);

        var rows = await bench.MeasureAsync(Amounts, Policy, seed: 1);

        Assert.InRange(rows.Sum(r => r.Repeat), 149, 150);
        Assert.Equal(rows.Sum(r => r.Repeat) * 2, bench.MeasuredRuns().Count());
        Assert.All(rows, r => Assert.Equal(StopReason.BudgetSpent, r.Stopped));
        Assert.All(rows, r => Assert.InRange(r.Repeat, 48, 52)); // shared round by round, not spent by the first row
    }

    [Fact]
    public async Task EveryRowGetsTheMinimumPairsEvenWhenTheBudgetIsSpent()
    {
        var bench = new ScriptedBench(Noisy);

        var rows = await bench.MeasureAsync(Amounts, Policy with { Budget = TimeSpan.FromSeconds(0.05) }, seed: 1);

        Assert.All(rows, r => Assert.Equal(Policy.MinimumRepeats, r.Repeat));
        Assert.All(rows, r => Assert.Equal(StopReason.BudgetSpent, r.Stopped));
    }

    [Fact]
    public async Task TheVisitingOrderIsShuffledEachRoundAndTheSameSeedGivesTheSameOrder()
    {
        var first = new ScriptedBench(Noisy);
        var again = new ScriptedBench(Noisy);
        var otherSeed = new ScriptedBench(Noisy);

        await first.MeasureAsync(Amounts, Policy, seed: 7);
        await again.MeasureAsync(Amounts, Policy, seed: 7);
        await otherSeed.MeasureAsync(Amounts, Policy, seed: 8);

        Assert.Equal(first.MeasuredRuns(), again.MeasuredRuns());
        Assert.NotEqual(first.MeasuredRuns(), otherSeed.MeasuredRuns());

        // While no row has stopped, every round is each row's two pairs (four runs) in the round's order.
        var runsPerRound = Amounts.Length * Comparison.PairsPerRound * 2;
        var orders = first.MeasuredRuns().Chunk(runsPerRound).Where(round => round.Length == runsPerRound)
            .Select(round => string.Join(",", round.Chunk(Comparison.PairsPerRound * 2).Select(slice => slice[0].Amount)))
            .ToList();
        Assert.True(orders.Distinct().Count() > 1, string.Join(" | ", orders));
    }

    [Fact]
    public async Task ARowImpossibleWhenItWouldStopIsMeasuredAgainInLaterRoundsFromFreshPairs()
    {
        const long disturbed = 100_000_000;
        var remeasureFrom = Policy.MinimumRepeats;

        // Its first pairs: sync 1000 x Task.Run, impossible on any machine; from then on Task.Run twice as fast.
        var bench = new ScriptedBench((mode, amount, n) => amount != disturbed ? Noisy(mode, amount, n)
            : n < remeasureFrom ? (mode == RunMode.Sync ? 0.01 : 0.00001)
            : Steady(mode));

        var rows = await bench.MeasureAsync(Amounts, Policy, seed: 1);

        var row = rows.Single(r => r.Amount == disturbed);
        Assert.True(row.Remeasured);
        Assert.Equal(StopReason.Converged, row.Stopped);
        Assert.Equal(Policy.MinimumRepeats, row.Repeat);
        Assert.Equal(200, row.Efficiency.Median, 9);
        var again = bench.MeasuredRuns().Select((run, index) => (run.Amount, index)).Where(r => r.Amount == disturbed).Skip(2 * remeasureFrom).Select(r => r.index).ToList();
        Assert.Equal(2 * Policy.MinimumRepeats, again.Count);
        Assert.True(again[^1] - again[0] + 1 > again.Count, "the re-measure's pairs were one block"); // other rows' slices ran between them
    }

    [Fact]
    public async Task CompareIsTheSameMeasurementWithOneRow()
    {
        var bench = new ScriptedBench((mode, _, _) => Steady(mode));

        var rows = await bench.MeasureAsync([Amounts[0]], Policy, seed: 1);

        var row = Assert.Single(rows);
        Assert.Equal(StopReason.Converged, row.Stopped);
        Assert.Equal(200, row.EfficiencyPercent, 9);
        Assert.Equal(Policy.Describe(), Comparison.Describe(Policy, 1, seed: 1));
        Assert.Contains("shuffled each round (seed 20)", Comparison.Describe(Policy, 3, Comparison.ShuffleSeed), StringComparison.Ordinal);
    }

    /// <summary>Task.Run twice as fast as sync, every time: converges at the minimum number of pairs.</summary>
    private static double Steady(RunMode mode) => mode == RunMode.Sync ? 0.02 : 0.01;

    /// <summary>
    /// Sync and Task.Run share 0.02 s per pair in proportions that vary from pair to pair: the ratio and both medians stay
    /// far wider than 1 % at the pair counts a few seconds buy, while every pair takes the same time on the fake clock.
    /// </summary>
    private static double Noisy(RunMode mode, long amount, int n)
    {
        var skew = ((n * 7 % 11) - 5) / 20.0;
        return 0.01 * (mode == RunMode.Sync ? 1 + skew : 1 - skew);
    }

    /// <summary>Consecutive measured runs of one amount, as (amount, pairs).</summary>
    private static List<(long Amount, int Pairs)> Slices(IEnumerable<(RunMode Mode, long Amount)> runs)
    {
        var slices = new List<(long Amount, int Runs)>();
        foreach (var run in runs)
        {
            if (slices.Count > 0 && slices[^1].Amount == run.Amount)
            {
                slices[^1] = (run.Amount, slices[^1].Runs + 1);
            }
            else
            {
                slices.Add((run.Amount, 1));
            }
        }

        return [.. slices.Select(s => (s.Amount, s.Runs / 2))];
    }

    /// <summary>A bench whose runs take scripted seconds (by mode, amount and how many runs of that mode and amount came before) on a fake clock.</summary>
    private sealed class ScriptedBench(Func<RunMode, long, int, double> seconds)
    {
        private readonly FakeTimeProvider _time = new();
        private readonly List<(RunMode Mode, long Amount)> _runs = [];
        private int _calibrations;

        public Task<IReadOnlyList<ComparisonRow>> MeasureAsync(IReadOnlyList<long> amounts, MeasurementPolicy policy, int seed) =>
            Comparison.MeasureRowsAsync(WorkUnit.Compute, amounts, policy, new Bench(RunAsync, _ => ++_calibrations, _time), seed, CancellationToken.None);

        /// <summary>The runs of the rows' pairs, in order (warm-up runs are at the unit's warm-up amount).</summary>
        public IEnumerable<(RunMode Mode, long Amount)> MeasuredRuns() => _runs.Where(r => r.Amount != WorkUnit.Compute.WarmupAmount);

        private Task<double> RunAsync(RunMode mode, long amount, CancellationToken cancellationToken)
        {
            var run = seconds(mode, amount, _runs.Count(r => r == (mode, amount)));
            _runs.Add((mode, amount));
            _time.Advance(TimeSpan.FromSeconds(run));
            return Task.FromResult(run);
        }
    }
}
