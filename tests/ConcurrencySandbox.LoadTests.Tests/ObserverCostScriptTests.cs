using System.Globalization;
using System.Text;
using System.Text.RegularExpressions;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>scripts/observer-cost.sh refuses bad arguments before it builds or starts anything: exit 2, one line naming the cause.</summary>
public class ObserverCostScriptTests
{
    private static readonly string Script = Path.Combine(FolderLayeringTests.RepositoryRoot(), "scripts", "observer-cost.sh");
    private static readonly string Figures = Path.Combine(FolderLayeringTests.RepositoryRoot(), "scripts", "observer-cost-figures.py");

    [Theory]
    [InlineData(new[] { "--observer", "stack" }, "--observer must be runner, watch, trace, session, routes, stacks, causes, calls or none, not 'stack'")]
    [InlineData(new[] { "--observer" }, "--observer must be runner, watch, trace, session, routes, stacks, causes, calls or none, not ''")]
    [InlineData(new[] { "--mode", "apart" }, "--mode must be shared or pinned, not 'apart'")]
    [InlineData(new[] { "--observer", "watch", "--mode" }, "--mode must be shared or pinned, not ''")]
    [InlineData(new[] { "0" }, "pairs must be 1..20, not '0'")]
    [InlineData(new[] { "3", "16x" }, "users must be 1..1024, not '16x'")]
    [InlineData(new[] { "3", "16", "5" }, "seconds must be 6..59 (the observer's parts take the first 5), not '5'")]
    [InlineData(new[] { "3", "16", "20", "1" }, "at most three numbers (pairs, users, seconds), not '3 16 20 1'")]
    public async Task BadArgumentsExitWithCodeTwoAndOneLineNamingTheCause(string[] args, string message)
    {
        var (code, output, error) = await CommandRun.RunAsync("bash", [Script, .. args]);

        Assert.Equal(2, code);
        Assert.Empty(output);
        Assert.Equal(message, error.Trim());
    }

    [Theory]
    [InlineData("--observer", "runner", "BASELINE_RUNNER is not a file: '/no/such.dll'")]
    [InlineData("--observer", "causes", "BASELINE_RUNNER goes with --observer runner or watch, not 'causes'")]
    public async Task ABaselineThatIsNoFileOrHasNoPartToCompareIsRefused(string option, string observer, string message)
    {
        var (code, output, error) = await CommandRun.RunAsync("env", ["BASELINE_RUNNER=/no/such.dll", "bash", Script, option, observer]);

        Assert.Equal(2, code);
        Assert.Empty(output);
        Assert.Equal(message, error.Trim());
    }

    [Theory]
    [InlineData("2")]
    [InlineData("yes")]
    public async Task AProfileSettingOtherThanZeroOrOneIsRefused(string profile)
    {
        var (code, output, error) = await CommandRun.RunAsync("env", [$"PROFILE={profile}", "bash", Script]);

        Assert.Equal(2, code);
        Assert.Empty(output);
        Assert.Equal($"PROFILE must be 0 or 1, not '{profile}'", error.Trim());
    }

    [Theory]
    [InlineData("0")]
    [InlineData("65")]
    [InlineData("4x")]
    public async Task UpstreamCallsOutsideOneToSixtyFourAreRefused(string calls)
    {
        var (code, output, error) = await CommandRun.RunAsync("env", [$"UPSTREAM_CALLS={calls}", "bash", Script, "--observer", "calls"]);

        Assert.Equal(2, code);
        Assert.Empty(output);
        Assert.Equal($"UPSTREAM_CALLS must be 1..64, not '{calls}'", error.Trim());
    }

    /// <summary>
    /// A pair's ratio is its legs' geometric mean, each side on each API once: an API process faster than the other for its
    /// whole life (up to 15 % either way, generated) leaves the pair at the observer's own cost, where a pair of one leg (the
    /// design before: each side on one API throughout) read that cost times the processes' difference.
    /// </summary>
    [Theory]
    [InlineData(1, 1.0)]
    [InlineData(2, 1.0)]
    [InlineData(3, 0.93)]
    [InlineData(4, 0.96)]
    [InlineData(5, 0.90)]
    public async Task APairReadsTheObserversCostWhicheverApiProcessIsFaster(int seed, double cost)
    {
        var random = new Random(seed);
        var speeds = new[] { 0.85 + 0.3 * random.NextDouble(), 0.85 + 0.3 * random.NextDouble() };
        using var run = GeneratedRun.Write(random, speeds, cost, pairs: 3, turnsPerLeg: 20, earlyExtraTicks: 0);

        var (code, output, error) = await CommandRun.RunAsync("python3", [Figures, run.Turns, run.Pairs, "100", "all", cost == 1.0 ? "none" : "runner", "shared"]);

        Assert.True(code == 0, error);
        var pairRatios = Regex.Match(output, @"per pair ([0-9., ]+), mean").Groups[1].Value.Split(", ").Select(r => double.Parse(r, CultureInfo.InvariantCulture)).ToList();
        Assert.Equal(3, pairRatios.Count);
        // Each generated turn is off by at most 1 %, so a pair may be off by that much; the processes differ by up to 35 %.
        Assert.All(pairRatios, r => Assert.InRange(r, cost * 0.99, cost * 1.01));
        for (var p = 1; p <= 3; p++)
        {
            var (_, pairLine, _) = await CommandRun.RunAsync("python3", [Figures, run.Turns, run.Pairs, "100", p.ToString(CultureInfo.InvariantCulture), "runner", "shared"]);
            var legs = Regex.Match(pairLine, @"its legs ([0-9.]+) on API 0, ([0-9.]+) on API 1").Groups;
            // Leg 0 has the observed side on API 0, leg 1 on API 1: each leg alone reads the cost times the processes' difference.
            Assert.InRange(double.Parse(legs[1].Value, CultureInfo.InvariantCulture), cost * speeds[0] / speeds[1] * 0.98, cost * speeds[0] / speeds[1] * 1.02);
            Assert.InRange(double.Parse(legs[2].Value, CultureInfo.InvariantCulture), cost * speeds[1] / speeds[0] * 0.98, cost * speeds[1] / speeds[0] * 1.02);
        }
    }

    /// <summary>
    /// An observer's fixed cost (its once-a-run parts, in a leg's first turns) reads as the observed API's extra CPU seconds
    /// a leg in turns 1-5 and none after, whichever API process is faster: a figure a busy machine's throughput hides.
    /// </summary>
    [Theory]
    [InlineData(6, 20)]
    [InlineData(7, 45)]
    [InlineData(8, 0)]
    public async Task AFixedEarlyCostReadsAsTheApisExtraCpuInTheFirstTurns(int seed, int extraTicks)
    {
        var random = new Random(seed);
        using var run = GeneratedRun.Write(random, [0.85 + 0.3 * random.NextDouble(), 0.85 + 0.3 * random.NextDouble()], 1.0, pairs: 2, turnsPerLeg: 10, earlyExtraTicks: extraTicks);

        var (code, output, error) = await CommandRun.RunAsync("python3", [Figures, run.Turns, run.Pairs, "100", "all", "runner", "shared"]);

        Assert.True(code == 0, error);
        var seconds = Regex.Match(output, @"turns 1-5 / the rest: the API ([-+][0-9.]+) / ([-+][0-9.]+) s").Groups;
        // The generated ticks are whole, so a turn's CPU per request is off by up to one tick in 40.
        Assert.InRange(double.Parse(seconds[1].Value, CultureInfo.InvariantCulture), extraTicks / 100.0 - 0.05, extraTicks / 100.0 + 0.05);
        Assert.InRange(double.Parse(seconds[2].Value, CultureInfo.InvariantCulture), -0.05, 0.05);
    }

    /// <summary>
    /// turns.txt and pairs.txt as observer-cost.sh writes them, for two APIs of the given speeds and an observer of the given
    /// cost, its API spending <paramref name="earlyExtraTicks"/> more CPU ticks a leg over its first 5 turns.
    /// </summary>
    private sealed class GeneratedRun : IDisposable
    {
        private readonly string _folder = Directory.CreateTempSubdirectory("observer-cost-figures-").FullName;

        public string Turns => Path.Combine(_folder, "turns.txt");

        public string Pairs => Path.Combine(_folder, "pairs.txt");

        public static GeneratedRun Write(Random random, double[] speeds, double cost, int pairs, int turnsPerLeg, int earlyExtraTicks)
        {
            var run = new GeneratedRun();
            var turns = new StringBuilder();
            var legRows = new StringBuilder();
            string[] sides = ["observed", "plain"];
            for (var pair = 0; pair <= pairs; pair++)
            {
                for (var leg = 0; leg < sides.Length; leg++)
                {
                    for (var side = 0; side < sides.Length; side++)
                    {
                        var api = (side + leg) % sides.Length;
                        long apiTicks = 0;
                        for (var turn = 0; turn < turnsPerLeg; turn++)
                        {
                            var seconds = 0.98 + 0.04 * random.NextDouble();
                            var rate = 10_000 * speeds[api] * (side == 0 ? cost : 1.0) * (0.99 + 0.02 * random.NextDouble());
                            var requests = (long)(rate * seconds);
                            var ticks = requests * 40 / 10_000 + (side == 0 && turn < 5 ? earlyExtraTicks / 5 : 0);
                            apiTicks += ticks;
                            turns.AppendLine(CultureInfo.InvariantCulture, $"{pair} {leg} {api} {sides[side]} {turn} {requests} {seconds:F6} {ticks} {requests * 20 / 10_000}");
                        }
                        legRows.AppendLine(CultureInfo.InvariantCulture, $"{pair} {leg} {api} {sides[side]} {apiTicks + 5} {4 + random.Next(4)}");
                    }
                }
            }
            File.WriteAllText(run.Turns, turns.ToString());
            File.WriteAllText(run.Pairs, legRows.ToString());
            return run;
        }

        public void Dispose() => Directory.Delete(_folder, recursive: true);
    }
}
