using System.Globalization;
using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.Contracts.Telemetry;
using ConcurrencySandbox.LoadTests.Cli;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Experiments;
using ConcurrencySandbox.LoadTests.Experiments.Compute;
using ConcurrencySandbox.LoadTests.Experiments.Sleep;
using ConcurrencySandbox.LoadTests.Reports;
using ConcurrencySandbox.LoadTests.Running;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>Interleaved rounds, the verdict from a CI, physical limits and smoke runs: on made-up results, no API and no clock.</summary>
public class RoundsTests
{
    // Reproduced at or below 110 %, as compute's taskrun / sync throughput.
    private static readonly VerdictFigure AtMost110 = new("taskrun / sync throughput", 100, 110, ReproducedAbove: false, "0", " %");

    [Fact]
    public void RoundsAlternateTheirOrderSoTwoVariantsRunABBA()
    {
        var order = Rounds.Order(["A", "B"], 2);

        Assert.Equal("A B | B A", Rounds.Describe(order));
        Assert.Equal("a b c | c b a | a b c", Rounds.Describe(Rounds.Order(["a", "b", "c"], 3)));
    }

    [Fact]
    public void SixRoundsOfTheQuickRampLastOneAndAHalfRampsPerVariantWithTheSameLoads()
    {
        var quick = Profiles.Create("quick", 20);

        var round = Rounds.Shorten(quick, 6);

        Assert.Equal(quick.Duration * Rounds.LengthFactor / 6, round.Duration);
        Assert.Equal(quick.Steps.Select(s => s.Target), round.Steps.Select(s => s.Target));
        Assert.Same(quick, Rounds.Shorten(quick, 1));
    }

    [Fact]
    public void ARoundThatWouldOverrunTheBudgetIsNotStarted()
    {
        Assert.True(Rounds.NextFits(TimeSpan.FromSeconds(60), TimeSpan.FromSeconds(30), TimeSpan.FromSeconds(90)));
        Assert.False(Rounds.NextFits(TimeSpan.FromSeconds(61), TimeSpan.FromSeconds(30), TimeSpan.FromSeconds(90)));
    }

    [Fact]
    public void TheVerdictQuotesTheMedianAndTheCiOfThePerRoundFigures()
    {
        var (finding, shown) = RoundVerdict.Judge(RoundsOf([95, 101, 99, 97, 103, 100]), 6, null);

        Assert.Equal(Outcome.Reproduced, finding.Outcome);
        // Six values: the distribution-free 95 % CI of the median is [min, max].
        Assert.Equal(99.5, finding.Interval!.Median);
        Assert.Equal((95.0, 103.0), (finding.Interval.Low!.Value, finding.Interval.High!.Value));
        Assert.Contains("taskrun / sync throughput 100 % [95, 103] over 6 of 6 rounds; the median round: ", finding.Verdict);
        Assert.Contains(shown, new[] { 1, 2, 5 });
    }

    [Fact]
    public void ACiThatStraddlesTheThresholdIsInconclusiveAndSaysWhy()
    {
        var (finding, _) = RoundVerdict.Judge(RoundsOf([95, 130, 99, 120, 103, 115]), 6, null);

        Assert.Equal(Outcome.Inconclusive, finding.Outcome);
        Assert.StartsWith("Inconclusive: the 95 % CI straddles the threshold of 110 %", finding.Verdict);
        Assert.Contains("what the median round alone would say (no verdict)", finding.Verdict);
    }

    [Fact]
    public void ACiEntirelyOnTheOtherSideIsNotReproduced()
    {
        var (finding, _) = RoundVerdict.Judge(RoundsOf([150, 160, 170, 155, 165, 158]), 6, null);

        Assert.Equal(Outcome.NotReproduced, finding.Outcome);
    }

    [Fact]
    public void FewerThanSixRoundsGiveNoCiSoNoVerdictAndTheBudgetStopIsNamed()
    {
        var (finding, _) = RoundVerdict.Judge(RoundsOf([95, 96, 97]), 6, "stopped after 3 of 6 rounds");

        Assert.Equal(Outcome.Inconclusive, finding.Outcome);
        Assert.Contains("3 rounds give no 95 % CI", finding.Verdict);
        Assert.Contains("stopped after 3 of 6 rounds", finding.Verdict);
    }

    [Fact]
    public void ALowerBoundShowsOnlyThatTheFigureIsAtLeastAsHigh()
    {
        var atLeast = new VerdictFigure("slowdown", 1, 2, ReproducedAbove: true, "0.0", " x") { LowerBound = true };
        IReadOnlyList<Finding> above = [.. new[] { 3.0, 3.1, 3.2, 3.3, 3.4, 3.5 }.Select(v => Round(atLeast with { Value = v }, Outcome.Reproduced))];
        IReadOnlyList<Finding> below = [.. new[] { 1.0, 1.1, 1.2, 1.3, 1.4, 1.5 }.Select(v => Round(atLeast with { Value = v }, Outcome.NotAssessed))];

        Assert.Equal(Outcome.Reproduced, RoundVerdict.Judge(above, 6, null).Finding.Outcome);
        Assert.Equal(Outcome.Inconclusive, RoundVerdict.Judge(below, 6, null).Finding.Outcome);
    }

    [Fact]
    public void ImpossibleRoundsAreLeftOutOfTheCiAndNamed()
    {
        IReadOnlyList<Finding> rounds = [.. RoundsOf([95, 101, 99, 97, 103, 100]), Finding.Impossible([], "taskrun / sync throughput of 226 % is above what 2 core(s) allow")];

        var (finding, _) = RoundVerdict.Judge(rounds, 7, null);

        Assert.Equal(6, finding.Interval!.Count);
        Assert.Contains("left out as impossible: round 7: taskrun / sync throughput of 226 %", finding.Verdict);
    }

    [Fact]
    public void EveryRoundImpossibleGivesNoVerdict()
    {
        var (finding, _) = RoundVerdict.Judge([Finding.Impossible([], "too fast")], 1, null);

        Assert.Equal(Outcome.Impossible, finding.Outcome);
        Assert.StartsWith("Impossible figure, no verdict: too fast", finding.Verdict);
    }

    [Theory]
    [InlineData(2.26, 2, true)]
    [InlineData(1.9, 2, false)]
    [InlineData(1.2, 1, true)]
    public void AThroughputRatioOrEfficiencyAboveTheCoresIsImpossible(double ratio, int cores, bool impossible)
    {
        var why = PhysicalLimits.ThroughputRatio("taskrun / sync throughput", ratio, cores);

        Assert.Equal(impossible, why is not null);
        if (impossible)
        {
            Assert.Contains($"above what {(cores == 1 ? "1 core allows" : $"{cores} cores allow")} ({cores * 100} %)", why);
            Assert.Contains("warm-up", why);
        }
    }

    [Fact]
    public void ComputeOnTwoCoresServingThreeTimesTheThroughputIsFlaggedNotJudged()
    {
        var finding = new ComputeExperiment(10_000_000).Assess([Result("sync", 10, 100, cores: 2), Result("taskrun", 10, 300, cores: 2)]);

        Assert.Equal(Outcome.Impossible, finding.Outcome);
        Assert.Null(finding.Figure);
        Assert.Contains("300 % is above what 2 cores allow", finding.Verdict);
    }

    [Fact]
    public void ALatencyBelowTheWorksOwnDelayIsImpossible()
    {
        Assert.Contains("below the 200 ms the request waits", PhysicalLimits.Latency("sync's mean", 150, 200));
        Assert.Null(PhysicalLimits.Latency("sync's mean", 210, 200));

        // sync sleeps two units of 100 ms one after the other: a 150 ms mean cannot be.
        var finding = new SleepExperiment(100).Assess([Result("sync", 150, 100), Result("taskrun", 100, 100), Result("async", 100, 100)]);

        Assert.Equal(Outcome.Impossible, finding.Outcome);
    }

    [Fact]
    public void TheSmokeProfileAndTooShortALoadGiveNoVerdict()
    {
        var compute = new ComputeExperiment(10_000_000);
        var smoke = new LoadOptions(Profiles.Create("smoke", 20), "smoke", TimeSpan.FromSeconds(60), 100);
        var shortConfig = new LoadOptions(new LoadShape([new KeepConstant(4, TimeSpan.FromSeconds(5))], TimeSpan.FromSeconds(1)), "config short.json", TimeSpan.FromSeconds(60), 100);

        Assert.Contains("smoke profile", ExperimentRunner.SmokeBecause(compute, smoke));
        Assert.Contains("shorter than the 30 s compute needs", ExperimentRunner.SmokeBecause(compute, shortConfig));
        Assert.Null(ExperimentRunner.SmokeBecause(compute, smoke with { Shape = Profiles.Create("quick", 20), ProfileName = "quick" }));
    }

    [Fact]
    public void ASmokeRunPrintsNoVerdictWithItsFiguresInSummaryMdAndJson()
    {
        var measured = new Finding(Outcome.NotReproduced, [new SeedComparison("throughput", "not measured", "226 % (9 vs 4 req/s)")], "Task.Run still served 226 %.") { Figure = AtMost110 with { Value = 226 } };

        var finding = RoundVerdict.NoVerdict(measured, "the smoke profile's 3 s of load is a check that the run works, not a measurement");
        var report = SyntheticReports.LoadRun("compute", ["sync", "taskrun"], 3, 5, (_, _) => 10) with { Finding = finding };

        Assert.StartsWith("smoke: no verdict: the smoke profile's 3 s", finding.Verdict);
        Assert.Contains("taskrun / sync throughput 226 %", finding.Verdict);
        Assert.Contains("throughput: 226 % (9 vs 4 req/s)", finding.Verdict);
        Assert.DoesNotContain("still served", finding.Verdict);
        Assert.Contains("smoke: no verdict", ReportWriter.SummaryMarkdown(report.Analysed()));
        var summary = RunSummary.Parse(report.Analysed().ToJson());
        Assert.Equal("NoVerdict", summary.Outcome);
        Assert.StartsWith("smoke: no verdict", summary.Verdict);
    }

    [Fact]
    public void ASmokeRunOfASeedWithSeveralClaimsIsNoVerdictNotPartlyReproducedAndItsClaimsDecideNothing()
    {
        // Seed 003's claims disagreeing, as a 3 s smoke fan-out gave in CI's compose stage ("Partly reproduced: the smoke profile's ...").
        var measured = Finding.OfClaims(
            [new Claim("latency", ClaimVerdict.Confirmed, "1.5 x", "[no 95 % CI]", "above 1"), new Claim("max", ClaimVerdict.Refuted, "0.9 x", "[no 95 % CI]", "below 1")],
            [new SeedComparison("slowdown", "about 50 x", "1.5 x")], "the claims disagree.");

        var finding = RoundVerdict.NoVerdict(measured, "the smoke profile's 3 s of load is a check that the run works, not a measurement");

        Assert.True(measured.Partly);
        Assert.False(finding.Partly);
        Assert.StartsWith("smoke: no verdict: ", finding.Verdict);
        Assert.All(finding.Claims, c => Assert.Equal(ClaimVerdict.Inconclusive, c.Verdict));
        Assert.Equal(["1.5 x", "0.9 x"], finding.Claims.Select(c => c.Figure));
    }

    [Fact]
    public void InRoundsTheClaimOnTheVerdictFigureIsStatedFromTheRoundsCiNotFromTheShownRoundsOwn()
    {
        // sleep: each round's latency claim carried its own round's CI and verdict (here inconclusive); the rounds' CI clears 2 x.
        var slowdown = new VerdictFigure("sync / async slowdown at peak load", 0, Starvation.Ratio, ReproducedAbove: true, "0.0", " x");
        var rounds = new[] { 3.0, 3.2, 2.9, 3.1, 3.3, 3.0 }.Select(v => Finding.OfClaims(
            [new Claim("latency under load", ClaimVerdict.Inconclusive, $"{v} x", "[1.9, 4.1]", "the round's own CI straddles 2 x") { OnVerdictFigure = true },
             new Claim("max latency", ClaimVerdict.Confirmed, "5 x", "[no 95 % CI: an extreme]", "clears 2 x")],
            [], "round.") with { Figure = slowdown with { Value = v } }).ToList();

        var (finding, _) = RoundVerdict.Judge(rounds, 6, null);

        var latency = finding.Claims[0];
        Assert.Equal(ClaimVerdict.Confirmed, latency.Verdict);
        Assert.StartsWith("[2.9, 3.3] over 6 rounds (median ", latency.Interval);
        Assert.Equal(rounds[0].Claims[1], finding.Claims[1]);
        Assert.Equal(Outcome.Reproduced, finding.Outcome);
    }

    [Fact]
    public void TheRoundsTableReachesSummaryJsonAndMarkdownAndReadsBack()
    {
        var report = SyntheticReports.LoadRun("compute", ["sync", "taskrun"], 3, 5, (_, _) => 10);
        var (finding, _) = RoundVerdict.Judge(RoundsOf([95, 101, 99, 97, 103, 100]), 6, null);
        var rounds = ExperimentRunner.RoundTable("sync taskrun | taskrun sync", 6, finding,
            [.. Enumerable.Range(0, 6).Select(i => (Rounds.Order(new[] { new Variant("sync", null!), new Variant("taskrun", null!) }, 6)[i], report.Variants, RoundsOf([95, 101, 99, 97, 103, 100])[i]))]);

        report = report with { Finding = finding, Rounds = rounds };

        var summary = RunSummary.Parse(report.Analysed().ToJson());
        Assert.Equal(6, summary.Rounds!.Rounds.Count);
        Assert.Equal(["taskrun", "sync"], summary.Rounds.Rounds[1].Order);
        Assert.Equal((95.0, 103.0), (summary.Rounds.Low!.Value, summary.Rounds.High!.Value));
        Assert.Contains("- round 2: taskrun then sync: 101 (reproduced)", ReportWriter.SummaryMarkdown(report.Analysed()));
    }

    [Fact]
    public void TheVerdictSaysHowManyRoundsAndTheRoundsAreListedUnderItInTheConsoleSummaryAndReportAlike()
    {
        // coldstart's verdict printed six rounds' order in one line: "over 6 of 6 round(s) (default-pool min-workers-200 | min-workers-200 default-pool | ...)".
        var report = SyntheticReports.Burst(8, new Dictionary<string, int> { ["default-pool"] = 2, ["min-workers-200"] = 8 });
        double[] figures = [9.6, 7.583, 11.116, 12.601, 8.31, 11.588];
        var slowdown = new VerdictFigure("last response, default pool / raised minimum", 0, 2, ReproducedAbove: true, "0.0", " x");
        IReadOnlyList<Finding> perRound = [.. figures.Select(v => Round(slowdown with { Value = v }, Outcome.Reproduced))];
        var (finding, _) = RoundVerdict.Judge(perRound, 6, null);
        var order = Rounds.Order(new[] { new Variant("default-pool", null!), new Variant("min-workers-200", null!) }, 6);
        var summary = (report with
        {
            Finding = finding,
            Rounds = ExperimentRunner.RoundTable(Rounds.Describe([.. order.Select(o => (IReadOnlyList<string>)[.. o.Select(v => v.Name)])]), 6, finding,
                [.. Enumerable.Range(0, 6).Select(i => (order[i], report.Variants, perRound[i]))]),
        }).Analysed();
        using var console = new StringWriter();

        ReportWriter.PrintOutcome(summary, "out", console);

        Assert.DoesNotContain("|", summary.Verdict);
        Assert.Contains("over 6 of 6 rounds;", summary.Verdict);
        var lines = ReportWriter.RoundLines(summary);
        Assert.Equal(6, lines.Count);
        Assert.Equal("round 1: default-pool then min-workers-200: 9.6 (reproduced)", lines[0]);
        Assert.Equal("round 2: min-workers-200 then default-pool: 7.6 (reproduced)", lines[1]);
        var printed = console.ToString().Split('\n').Select(l => l.Trim()).ToList();
        var markdown = ReportWriter.SummaryMarkdown(summary);
        var html = ReportWriter.ReportHtml(summary);
        Assert.All(lines, line =>
        {
            Assert.Contains(line, printed);
            Assert.Contains($"- {line}", markdown);
            Assert.Contains(line, html);
        });
    }

    [Theory]
    [InlineData("0.0", 1)]
    [InlineData("0.00", 2)]
    [InlineData("0", 3)]
    public void TheVerdictFigureHasOnePrecisionInTheVerdictTheAnswerAndTheRounds(string format, int seed)
    {
        // coldstart's page printed one figure at three precisions: 8.15 in the answer, 8.2 in the verdict, 8.118 in round 1.
        var random = new Random(seed);
        double[] figures = [.. Enumerable.Range(0, 6).Select(_ => 2.5 + 10 * random.NextDouble())];
        var slowdown = new VerdictFigure("last response, default pool / raised minimum", 0, 2, ReproducedAbove: true, format, " x");
        IReadOnlyList<Finding> perRound = [.. figures.Select(v => Round(slowdown with { Value = v }, Outcome.Reproduced))];
        var (finding, _) = RoundVerdict.Judge(perRound, 6, null);
        var order = Rounds.Order(new[] { new Variant("default-pool", null!), new Variant("min-workers-200", null!) }, 6);
        var report = SyntheticReports.Burst(8, new Dictionary<string, int> { ["default-pool"] = 2, ["min-workers-200"] = 8 });
        var summary = RunSummary.Parse((report with
        {
            Finding = finding,
            Rounds = ExperimentRunner.RoundTable(Rounds.Describe([.. order.Select(o => (IReadOnlyList<string>)[.. o.Select(v => v.Name)])]), 6, finding,
                [.. Enumerable.Range(0, 6).Select(i => (order[i], report.Variants, perRound[i]))]),
        }).Analysed().ToJson());

        string Show(double value) => value.ToString(format, CultureInfo.InvariantCulture);
        var (median, low, high) = (Show(finding.Interval!.Median), Show(finding.Interval.Low!.Value), Show(finding.Interval.High!.Value));
        Assert.Contains($"{slowdown.Name} {median} x [{low}, {high}]", summary.Verdict);
        Assert.Contains($"({slowdown.Name} {median}, 95 % CI {low} to {high} over 6 rounds)", summary.Answer);
        Assert.Equal([.. figures.Select(Show)], ReportWriter.RoundLines(summary).Select(line => line.Split(": ")[^1].Split(' ')[0]));
        Assert.All(ReportWriter.RoundsTable(summary)!.Rows, row => Assert.Contains(row[7], figures.Select(Show)));
    }

    [Theory]
    [InlineData("0")]
    [InlineData("51")]
    [InlineData("many")]
    public async Task RoundsOutOfRangeExitWithCode2AndOneLine(string rounds)
    {
        using var output = new StringWriter();
        using var error = new StringWriter();

        var code = await CommandLine.InvokeAsync(["compute", "--rounds", rounds], output, error, (_, _) => Task.FromResult(0));

        Assert.Equal(CommandLine.ExitUsage, code);
        Assert.Contains("--rounds", error.ToString());
        Assert.Single(error.ToString().Trim().Split('\n'));
    }

    [Fact]
    public async Task RoundsAndTheirBudgetReachTheRequest()
    {
        RunRequest? seen = null;
        using var output = new StringWriter();
        using var error = new StringWriter();

        await CommandLine.InvokeAsync(["compute", "--rounds", "8", "--rounds-budget-s", "300"], output, error, (request, _) => { seen = request; return Task.FromResult(0); });

        Assert.Equal(8, seen!.Rounds);
        Assert.Equal(TimeSpan.FromSeconds(300), seen.RoundsBudget);
    }

    [Theory]
    [InlineData(false, false, null, null)]
    [InlineData(true, false, null, 1)]
    [InlineData(false, true, null, 1)]
    [InlineData(true, false, "4", 4)]
    public async Task AShapeOrServerTheUserChoseRunsWholeInOneRoundUnlessRoundsAsks(bool config, bool target, string? rounds, int? expected)
    {
        var shape = Path.GetTempFileName();
        try
        {
            await File.WriteAllTextAsync(shape, """{"ReportingInterval":"00:00:01","LoadSimulationsSettings":[{"KeepConstant":[4,"00:00:03"]}]}""");
            List<string> args = ["compute"];
            args.AddRange(config ? ["--config", shape] : []);
            args.AddRange(target ? ["--target", "http://127.0.0.1:5999"] : []);
            args.AddRange(rounds is null ? [] : ["--rounds", rounds]);
            RunRequest? seen = null;
            using var output = new StringWriter();
            using var error = new StringWriter();

            var code = await CommandLine.InvokeAsync([.. args], output, error, (request, _) => { seen = request; return Task.FromResult(0); });

            Assert.True(code == 0, error.ToString());
            Assert.Equal(expected, seen!.Rounds);
        }
        finally
        {
            File.Delete(shape);
        }
    }

    private static IReadOnlyList<Finding> RoundsOf(IEnumerable<double> values) =>
        [.. values.Select(v => Round(AtMost110 with { Value = v }, v <= 110 ? Outcome.Reproduced : Outcome.NotReproduced))];

    private static Finding Round(VerdictFigure figure, Outcome outcome) => new(outcome, [], $"round figure {figure.Value}") { Figure = figure };

    private static VariantResult Result(string name, double meanMs, double requests, int cores = 2)
    {
        var key = new VariantKey(name);
        var stats = TestStats.Uniform((long)requests, meanMs);
        var snapshot = new RuntimeSnapshot(DateTimeOffset.UnixEpoch, 1, cores, new ThreadPoolTelemetry(4, 0, 0, 2, 32767), new GCTelemetry(0, 0, 0, 0, 0, 0), new ProcessTelemetry(0, 0, 0, 4), 0, 0, 0, default);
        return new VariantResult(key, "/x", "users", 10, [new IntervalRow(key, 10, "users", 40, requests / 10, stats)], [new TelemetryRow(key, 0, snapshot)], stats)
        {
            Sent = [new SentSlice(0, (long)requests, meanMs * requests, 0, 0, 0)],
        };
    }
}
