using System.Globalization;
using System.Text.Json;
using System.Text.RegularExpressions;
using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Engine;
using ConcurrencySandbox.LoadTests.Experiments;
using ConcurrencySandbox.LoadTests.Reports;
using ConcurrencySandbox.LoadTests.Running;
using static System.FormattableString;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>report.html's first screen: one plain sentence, then a tile per variant, every figure in them a field of the summary.</summary>
public sealed partial class FirstScreenTests : IDisposable
{
    private readonly string _out = Path.Combine(Path.GetTempPath(), "first-screen-" + Guid.NewGuid().ToString("N"));

    [Fact]
    public void EachTileReadsItsVariantsSummaryFieldsAndAVariantWithNoAnswerSaysSoNeverZero()
    {
        // threadpool's requests all take 90 s and time out at 60 s: not one is answered.
        var summary = SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (name, _) => name == "threadpool" ? 90_000 : 100).Analysed();

        var tiles = ReportWriter.Tiles(summary);

        var (threadpool, async) = (tiles.Single(t => t.Name == "threadpool"), tiles.Single(t => t.Name == "async"));
        var asyncSummary = summary.Variants.Single(v => v.Name == "async");
        Assert.Equal(asyncSummary.RequestsPerSecond.ToString("0.##", CultureInfo.InvariantCulture), Value(async, "RPS"));
        Assert.Equal($"{ReportWriter.Latency(asyncSummary, asyncSummary.P50Ms, "p50Ms")} / {ReportWriter.Latency(asyncSummary, asyncSummary.P99Ms, "p99Ms")}", Value(async, "p50 / p99 (ms)"));
        // Its rate counts the requests that failed, as the variant table's RPS does (one value on the page); no latency.
        var threadpoolSummary = summary.Variants.Single(v => v.Name == "threadpool");
        var rate = threadpoolSummary.RequestsPerSecond.ToString("0.##", CultureInfo.InvariantCulture);
        Assert.Equal(rate, Value(threadpool, "RPS"));
        Assert.Contains(ReportWriter.VariantTable(summary).Rows, row => row[0].StartsWith("threadpool", StringComparison.Ordinal) && row.Contains(rate));
        Assert.Equal(ReportWriter.NoAnswer, Value(threadpool, "p50 / p99 (ms)"));
        Assert.DoesNotContain(threadpool.Figures, f => f.Value == "0" || f.Value.StartsWith("0 /", StringComparison.Ordinal));
        Assert.Contains(RenderedPage.Lines(ReportWriter.ReportHtml(summary)), line => line.StartsWith($"tile threadpool: RPS {rate}; p50 / p99 (ms) no answer", StringComparison.Ordinal));
    }

    [Fact]
    public void TheFirstSentenceIntroducesTheSeedInWordsAndSaysWhatHeldAndWhatFailedByHowMuch()
    {
        var summary = SyntheticReports.LoadRun("fanout", ["threadpool", "dedicated", "async"], 20, 5, (name, t) => name == "threadpool" && t >= 10 ? 90_000 : 100).Analysed();
        var threadpool = summary.Variants.Single(v => v.Name == "threadpool");

        Assert.StartsWith("fanout re-runs seed 003, a 2006 report on fanning out on the ThreadPool", summary.Answer, StringComparison.Ordinal);
        var (dedicated, async) = (summary.Variants.Single(v => v.Name == "dedicated"), summary.Variants.Single(v => v.Name == "async"));
        var (first, second) = dedicated.P99Ms <= async.P99Ms ? (dedicated, async) : (async, dedicated);
        Assert.Contains($"{first.Name} and {second.Name} answered every request up to 40 users, p99 {first.Name} {ReportWriter.Latency(first, first.P99Ms, "p99Ms")} ms, {second.Name} {ReportWriter.Latency(second, second.P99Ms, "p99Ms")} ms", summary.Answer, StringComparison.Ordinal);
        Assert.Contains(string.Create(CultureInfo.InvariantCulture, $"threadpool failed {threadpool.Outcomes.FailedPercent:0.#} % of its {threadpool.Requests} requests ({threadpool.Outcomes.TimedOut} timed out)"), summary.Answer, StringComparison.Ordinal);
        Assert.EndsWith($"seed 003's effect ({SeedReports.Effect("003")}) reproduced.", summary.Answer, StringComparison.Ordinal);
        // It opens report.html, under the title, and summary.md.
        ReportWriter.Write(_out, summary);
        Assert.Equal($"p.answer {summary.Answer}", RenderedPage.LinesOf(Path.Combine(_out, "report.html"))[1]);
        Assert.Contains($"**{summary.Answer}**", File.ReadAllText(Path.Combine(_out, "summary.md")), StringComparison.Ordinal);
    }

    [Fact]
    public void ARunStoppedBeforeItsFirstStepSaysNothingWasMeasuredAndAnInconclusiveClaimIsNeitherHiddenNorGreen()
    {
        var run = SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (_, _) => 100);
        var stopped = run with { Variants = [], Partial = PartialRun.Describe("threadpool", 0, 10, []) };
        Assert.StartsWith("fanout re-runs seed 003", stopped.Analysed().Answer, StringComparison.Ordinal);
        Assert.Contains("the run was stopped before its first step ended, so nothing was measured", stopped.Analysed().Answer, StringComparison.Ordinal);

        var unsure = run with
        {
            Finding = run.Finding with
            {
                Claims = [new("latency under load", ClaimVerdict.Confirmed, "3 x", "[2, 4]", "why"), new("max latency", ClaimVerdict.Inconclusive, "1 x", "", "why"), new("wait to start", ClaimVerdict.Inconclusive, "1 x", "", "why")],
            },
        };
        var summary = unsure.Analysed();
        // Stated "Reproduced" over 1 confirmed claim of 3: partly reproduced, on the verdict and in the first sentence alike.
        Assert.Equal(nameof(Outcome.Inconclusive), summary.Outcome);
        Assert.EndsWith($"seed 003's effect ({SeedReports.Effect("003")}) partly reproduced: 1 of 3 claims confirmed, 2 inconclusive.", summary.Answer, StringComparison.Ordinal);
        var lines = RenderedPage.Lines(ReportWriter.ReportHtml(summary));
        Assert.Contains(lines, line => line.StartsWith("p.verdict Partly reproduced: 1 of 3 claims confirmed, 2 inconclusive (max latency: why; wait to start: why): ", StringComparison.Ordinal));
        Assert.DoesNotContain(lines, line => line.StartsWith("p.verdict reproduced", StringComparison.Ordinal));
    }

    [Fact]
    public void AnInconclusiveAnswerNamesTheEffectAndAsksOnlyForWhatWouldDecideIt()
    {
        // streaming --find-capacity's answer said "run it again on a quieter machine or with more rounds" where its verdict
        // said the ramp's top was held and the clients were at their CPU limit: neither would change with a quieter machine.
        var run = SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (_, _) => 100);
        var summary = (run with { Finding = run.Finding with { Outcome = Outcome.Inconclusive } }).Analysed();
        SummaryRounds Rounds(double? low, double? high) => new("threadpool async", 6, "slowdown", 2, low, high, []);

        Assert.EndsWith($"whether seed 003's effect ({SeedReports.Effect("003")}) holds is inconclusive: the verdict below says why and what to change.", summary.Answer, StringComparison.Ordinal);
        Assert.EndsWith("inconclusive (slowdown 2, 95 % CI 1.5 to 2.5 over 0 rounds): the 95 % CI straddles the verdict's threshold, so run it again on a quieter machine or with more rounds",
            PlainAnswer.Of(summary with { Rounds = Rounds(1.5, 2.5) }).TrimEnd('.'), StringComparison.Ordinal);
        Assert.EndsWith("too few rounds to tell, so run it with more (--rounds).", PlainAnswer.Of(summary with { Rounds = Rounds(null, null) }), StringComparison.Ordinal);
    }

    [Fact]
    public void ACapacitySearchsHeadingAndAnswerGiveItsSloAsOneFigureAndHowItWasSetOnlyBelow()
    {
        // Both carried the SLO's whole provenance, three parentheses deep: "held its SLO (SLO p99 1062.9 ms (2 x the unloaded p99 of 531.5 ms (the median of 3 rounds ...))) up to 8 users".
        var search = CapacityCurveTests.Search();
        const string setFrom = "SLO p99 500 ms (2 x the unloaded p99 of 250 ms (the median of 3 rounds of one user, from 8 requests))";
        var summary = (search with { Capacity = search.Capacity! with { Slo = setFrom } }).Analysed();

        var (answer, title) = (summary.Answer!, ReportWriter.PageTitle(summary));

        Assert.Contains("held its SLO (p99 \u2264 500 ms) up to 12 users and broke it at 16 users (p99 900 ms)", answer, StringComparison.Ordinal);
        Assert.Contains("takes within its SLO (p99 \u2264 500 ms)", title, StringComparison.Ordinal);
        Assert.DoesNotContain("unloaded", answer + title, StringComparison.Ordinal);
    }

    [Fact]
    public void ARunUrlProfileJudgedByAnSloSaysWhereItBrokeAsItsHeadlineDoes()
    {
        // The answer said "answered every request at p99 743.9 ms up to 40 users" above a headline "broke at 36 users".
        var judged = Summary("run-url") with
        {
            HeadlineFigures = [new("held", 32, "users"), new("broke at", 36, "users"), new("SLO p99", 250.5, "ms"), new("p99 at the break", 743.9, "ms")],
        };
        var held = Summary("run-url") with { HeadlineFigures = [new("held", 40, "users"), new("SLO p99", 250.5, "ms")] };

        Assert.EndsWith("; its SLO (p99 \u2264 250.5 ms) held up to 32 users and broke at 36 users.", PlainAnswer.Of(judged), StringComparison.Ordinal);
        Assert.EndsWith("; its SLO (p99 \u2264 250.5 ms) held up to 40 users, no load tried broke it.", PlainAnswer.Of(held), StringComparison.Ordinal);
        Assert.DoesNotContain("SLO", PlainAnswer.Of(Summary("run-url")), StringComparison.Ordinal);
        var page = RunAnalysis.Reworded(judged);
        Assert.Equal(PlainAnswer.Of(judged), page.Answer);
        AssertFirstScreenReadsTheSummary("run-url judged", page);
    }

    [Theory]
    [InlineData(39)]
    [InlineData(501)]
    public void WhatARunUrlsHeadlineRestsOnIsBelowTheFirstScreenUnderItsHeadingAndAboveTheHeadlineInTheConsole(int seed)
    {
        // A run --url report put a 501-word paragraph right under its headline, on the first screen. Seeded: how long the
        // paragraph is, whether there is one, and the headline's sentences.
        var random = new Random(seed);
        for (var i = 0; i < 6; i++)
        {
            string Sentence(int words) => string.Join(" ", Enumerable.Range(0, words).Select(w => $"word{random.Next(100)}")) + ".";
            var headline = string.Join(" ", Enumerable.Range(0, 1 + random.Next(4)).Select(_ => Sentence(5 + random.Next(20))));
            var details = i % 3 == 2 ? null : string.Join(" ", Enumerable.Range(0, 1 + random.Next(40)).Select(_ => Sentence(5 + random.Next(30))));
            var summary = (SyntheticReports.LoadRun("run", ["GET /api/orders"], 20, 5, (_, t) => t >= 10 ? 2_000 : 100) with
            {
                Seed = "none (a user's service)", Headline = headline, HeadlineDetails = details,
            }).Analysed();

            var lines = RenderedPage.Lines(ReportWriter.ReportHtml(summary));
            var markdown = ReportWriter.SummaryMarkdown(summary);
            using var console = new StringWriter();
            ReportWriter.PrintOutcome(summary, _out, console);
            var printed = console.ToString().Split(Environment.NewLine);

            var firstHeading = lines.ToList().FindIndex(line => line.StartsWith("h2 ", StringComparison.Ordinal));
            Assert.InRange(lines.ToList().IndexOf($"p.verdict {headline}"), 1, firstHeading);
            var headlineLine = Array.IndexOf(printed, $"== {headline}");
            Assert.Equal($"== {summary.Experiment}: {summary.Verdict}", printed[headlineLine + 1]);
            if (details is null)
            {
                Assert.DoesNotContain($"h2 {ReportWriter.HeadlineDetailsHeading}", lines);
                Assert.DoesNotContain(printed, line => line.StartsWith($"-- {ReportWriter.HeadlineDetailsHeading}", StringComparison.Ordinal));
                continue;
            }
            // On the page: the first heading, over the paragraph; in summary.md the same; in the console the line above the headline.
            Assert.Equal([$"h2 {ReportWriter.HeadlineDetailsHeading}", $"p.details {details}"], lines.Skip(firstHeading).Take(2));
            Assert.Contains($"\n## {ReportWriter.HeadlineDetailsHeading}\n\n{details}\n", markdown, StringComparison.Ordinal);
            Assert.True(markdown.IndexOf(headline, StringComparison.Ordinal) < markdown.IndexOf($"## {ReportWriter.HeadlineDetailsHeading}", StringComparison.Ordinal));
            Assert.Equal($"-- {ReportWriter.HeadlineDetailsHeading}: {details}", printed[headlineLine - 1]);
        }
    }

    [Fact]
    public void APeakLoadOfOneIsOneUserAndARateKeepsItsUnit()
    {
        // find-capacity's one-user step read "peak load 1 users".
        var summary = Summary("fanout");
        var oneUser = summary with { Variants = [.. summary.Variants.Select(v => v with { PeakLoad = 1 })] };

        Assert.All(ReportWriter.Tiles(oneUser), tile => Assert.Equal("1 user", Value(tile, "peak load")));
        Assert.Contains("up to 1 user", PlainAnswer.Of(oneUser), StringComparison.Ordinal);
        Assert.Equal("1 req/s", ResponseCurve.LoadText(1, "rate"));
        Assert.Equal("2 users", ResponseCurve.LoadText(2, "users"));
    }

    [Fact]
    public void TheTileLegendDefinesTheMarksATileShowsAndNoOther()
    {
        // Every legend said what "\u2265", "no answer" and "n/a (no telemetry)" mean, on first screens that showed none of them.
        var clean = Summary("fanout");
        var timingOut = Summary("fanout-timing-out");
        var silent = SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (name, _) => name == "threadpool" ? 90_000 : 100).Analysed();

        Assert.DoesNotContain("\u2265", ReportWriter.TileLegend(clean), StringComparison.Ordinal);
        Assert.DoesNotContain($"{ReportWriter.NoAnswer}: ", ReportWriter.TileLegend(clean), StringComparison.Ordinal);
        Assert.DoesNotContain($"{ReportWriter.NoTelemetry}: ", ReportWriter.TileLegend(clean), StringComparison.Ordinal);
        Assert.Contains("\u2265 marks a lower bound", ReportWriter.TileLegend(timingOut), StringComparison.Ordinal);
        Assert.Contains($"{ReportWriter.NoAnswer}: ", ReportWriter.TileLegend(silent), StringComparison.Ordinal);
        Assert.EndsWith(".", ReportWriter.TileLegend(clean), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(3)]
    [InlineData(39)]
    [InlineData(507)]
    [InlineData(2026)]
    public void ASearchsTilesAndFirstLineGiveAStepsP99AsItWasJudgedAndAQuickPageHasOneUnloadedP99(int seed)
    {
        // QuoteDesk's search (session 59): the 4-user tile read 964.1 ms (its climb included), the first line 881.7 ms (the
        // hold the search judged); its quick run's knee read "2 x unloaded 172.67 ms" beside an SLO of "2 x the unloaded p99
        // of 163.7 ms". Seeded: the latencies, the starved climb, where it breaks, the SLO.
        var random = new Random(seed);
        var summary = SearchWithStarvedClimbs(random).Analysed();
        var tiles = ReportWriter.Tiles(summary);
        var label = ReportWriter.TileLabels(summary)[1].Label;
        foreach (var step in summary.Capacity!.Steps!)
        {
            var tile = tiles.Single(t => t.Name == step.Variant);
            Assert.Equal(Invariant($"{step.P50Ms:0.#} / {step.P99Ms:0.#}"), Value(tile, label));
            // Not the whole run's, which its starved climb moved (what the tile read before).
            Assert.NotEqual(summary.Variants.Single(v => v.Name == step.Variant).P99Ms, step.P99Ms);
        }
        var broke = summary.Capacity.Steps!.Single(s => s.Verdict == StepJudgement.Broke && s.Load == summary.Capacity.BrokeAt);
        var answered = AnswerP99().Match(summary.Answer!);
        Assert.True(answered.Success, summary.Answer);
        Assert.Equal(Value(tiles.Single(t => t.Name == broke.Variant), label).Split(" / ")[1], answered.Groups[1].Value);
        Assert.Contains(RenderedPage.Lines(ReportWriter.ReportHtml(summary)), line => line.StartsWith($"tile {broke.Variant}: RPS ", StringComparison.Ordinal) && line.Contains($"{label} {Value(tiles.Single(t => t.Name == broke.Variant), label)}", StringComparison.Ordinal));
        AssertFirstScreenReadsTheSummary($"search, seed {seed}", summary);

        var quick = QuickWithItsSlo(random);
        var page = RenderedPage.Lines(ReportWriter.ReportHtml(quick));
        Assert.Contains(page, line => line.Contains("x unloaded ", StringComparison.Ordinal));
        var unloaded = page.SelectMany(line => Unloaded().Matches(line)).Select(m => m.Groups[1].Value).Distinct().ToList();
        Assert.True(unloaded.Count == 1, $"seed {seed}: the page gives \"unloaded\" {unloaded.Count} values: {string.Join(", ", unloaded)}");
        AssertFirstScreenReadsTheSummary($"quick, seed {seed}", quick);
    }

    /// <summary>
    /// A find-capacity run as --url --launch makes one: a step a variant that climbs to its load from one user, then holds it,
    /// the first second of each climb starved (4-8 x slower), judged over the hold by the search's own rule (<see cref="ServiceSlo"/>);
    /// the loads double from one user to the first that breaks, then bisect once.
    /// </summary>
    private static ExperimentReport SearchWithStarvedClimbs(Random random)
    {
        var baseMs = 40 + random.Next(300);
        var breaksAt = 3 + random.Next(6);
        var slo = new ServiceSlo(Math.Round(baseMs * (2 + random.NextDouble()), 1), "SLO given");
        var starvedMs = baseMs * (4 + 4 * random.NextDouble());
        VariantResult Step(int users)
        {
            var holdMs = users >= breaksAt ? slo.P99Ms * (1.5 + random.NextDouble()) : baseMs * (1 + 0.2 * users / breaksAt);
            var run = SyntheticReports.LoadRun("run", [$"{users}-users"], 20, 8 + random.Next(8), (_, t) => t < 1 ? starvedMs : holdMs).Variants[0];
            // LoadRun's ten steps of 4 to 40 users: a climb of one user a step to the load, then the load held.
            double At(double load) => Math.Min(users, load / 4);
            return run with { Intervals = [.. run.Intervals.Select(i => i with { Load = At(i.Load) })], Steps = [.. run.Steps.Select(s => s with { Load = At(s.Load) })] };
        }
        var loads = new List<int>();
        for (var users = 1; loads.Count == 0 || loads[^1] < breaksAt; users *= 2)
        {
            loads.Add(users);
        }
        if (loads.Count > 1 && loads[^1] - loads[^2] > 1)
        {
            loads.Add((loads[^1] + loads[^2]) / 2);
        }
        var steps = loads.Select(Step).ToList();
        var judged = steps.ToDictionary(v => v.Key.Label, v => v.HeldAt(v.PeakLoad) is { } held ? slo.Judge(held.Stats, held.FromSeconds, held.ToSeconds, null) : throw new InvalidOperationException("no hold"));
        var held = steps.Where(v => judged[v.Key.Label].BrokeBecause is null).Max(v => v.PeakLoad);
        var broke = steps.Where(v => judged[v.Key.Label].BrokeBecause is not null).MinBy(v => v.PeakLoad)!;
        return SyntheticReports.Report("run", "none (a user's service)", "find-capacity", steps) with
        {
            Capacity = new SummaryCapacity("users", slo.P99Ms, slo.Described, held, broke.PeakLoad, judged[broke.Key.Label].BrokeBecause, null, null, null),
            StepJudgements = judged,
        };
    }

    /// <summary>
    /// A quick profile's run whose headline rests on its SLO, set as the runner sets it: from the rounds of its first step
    /// (<see cref="UnloadedBaseline"/>); its throughput grows with the load (as a closed model's does) until latency bends
    /// it, so its knee is stated on p99 against the first step's.
    /// </summary>
    private static RunSummary QuickWithItsSlo(Random random)
    {
        var baseMs = 40 + random.Next(300);
        var run = SyntheticReports.LoadRun("run", ["target"], 50, 8 + random.Next(8), (_, t) => baseMs * (t < 15 ? 1 : 3 + random.NextDouble()));
        var first = run.Variants[0].Steps[0];
        var baseline = UnloadedBaseline.Of(run.Variants[0].Intervals.Where(i => i.Load == first.Load), first.Stats, UnloadedBaseline.OneUser);
        var summary = (run with { Seed = "none (a user's service)", HeadlineDetails = $"Held; broke ({baseline.DescribeSlo(baseline.DefaultSloMs, given: false)})." }).Analysed();
        var target = summary.Variants[0];
        var points = target.Curve!.Points.Select(p => p with { OkPerSecond = p.Load * 1000 / baseMs }).ToList();
        return summary with { Variants = [target with { Curve = ResponseCurve.Of(target.Name, target.LoadUnit, points, [.. points.Select((_, i) => i)], "requests") }] };
    }

    [GeneratedRegex(@"broke it at [^(]+\(p99 ([\d.,]+) ms")]
    private static partial Regex AnswerP99();

    [GeneratedRegex(@"unloaded (?:p99 )?(?:of )?([\d.,]+) m?s\b")]
    private static partial Regex Unloaded();

    /// <summary>Every report kind's first screen, from the analysis of synthetic raw results as a real run makes them.</summary>
    public static TheoryData<string> Kinds() => ["fanout", "fanout-timing-out", "coldstart", "find-capacity", "stopped", "streaming", "no-answer", "run-url"];

    [Theory]
    [MemberData(nameof(Kinds))]
    public void EveryNumberInTheFirstSentenceAndTilesIsAFieldOfTheSummaryAndLowerBoundsKeepTheirSign(string kind) => AssertFirstScreenReadsTheSummary(kind, Summary(kind));

    /// <summary>The committed reports (docs/results) of this version, as <c>report</c> renders them: real runs of the kinds the synthetic ones stand for, with rounds and claims.</summary>
    public static TheoryData<string> CommittedSummariesOfThisVersion() =>
    [
        .. SummaryContractTests.CommittedSummaryFiles()
            .Where(file => RunSummary.VersionOf(File.ReadAllText(CommittedSummary(file))) == RunSummary.CurrentVersion),
    ];

    [Theory]
    [MemberData(nameof(CommittedSummariesOfThisVersion))]
    public void EveryNumberOnACommittedReportsFirstScreenIsAFieldOfItsSummary(string file) =>
        AssertFirstScreenReadsTheSummary(file, RunAnalysis.Reworded(RunSummary.Parse(File.ReadAllText(CommittedSummary(file)))));

    private static string CommittedSummary(string file) => Path.Combine(FolderLayeringTests.RepositoryRoot(), "docs", "results", file);

    private void AssertFirstScreenReadsTheSummary(string kind, RunSummary summary)
    {
        ReportWriter.Write(_out, summary);
        var lines = RenderedPage.LinesOf(Path.Combine(_out, "report.html"));
        var firstScreen = lines.Where(line => line.StartsWith("p.answer ", StringComparison.Ordinal) || line.StartsWith("tile ", StringComparison.Ordinal)).ToList();
        Assert.NotEmpty(firstScreen);

        var fields = FieldsOf(summary);
        // The seed's introduction is words (its number and year), not a figure of the run; the SLO and why a step broke it
        // are the summary's own words, quoted; "95 % CI" names the interval, not a figure.
        var quoted = new[] { SeedReports.Introduce(summary.Seed), $"seed {summary.Seed}", summary.Capacity?.Slo, summary.Capacity?.BrokeBecause, "95 % CI" }.OfType<string>()
            .Concat(summary.Variants.Select(v => v.Name).OrderByDescending(name => name.Length));
        AssertEveryNumberIsAField(kind, quoted.Aggregate(string.Join("\n", firstScreen), (t, words) => t.Replace(words, "", StringComparison.Ordinal)), fields);
        // A search's tile gives its step's hold, as the search judged it; any other tile its variant's whole run.
        var bounded = summary.Capacity?.Steps is { Count: > 0 } steps
            ? steps.Where(s => s.LowerBounds?.Contains("p99Ms") == true && s.P99Ms is not null).Select(s => s.Variant)
            : summary.Variants.Where(v => v.LowerBounds?.Contains("p99Ms") == true && v.Outcomes.Completed > 0).Select(v => v.Name);
        foreach (var name in bounded)
        {
            Assert.Contains(firstScreen, line => line.StartsWith($"tile {name}: ", StringComparison.Ordinal) && line.Contains("/ \u2265 ", StringComparison.Ordinal));
        }
    }

    [Theory]
    [MemberData(nameof(Kinds))]
    public void TheHeadingSaysWhatWasTestedInWordsAndEveryLabelOfTheFirstScreenIsDefinedOnThePage(string kind)
    {
        var summary = Summary(kind);
        ReportWriter.Write(_out, summary);
        var html = File.ReadAllText(Path.Combine(_out, "report.html"));
        var lines = RenderedPage.Lines(html);

        // The heading names no seed by number; the first line that names the seed introduces it in words.
        Assert.DoesNotMatch("(?i)seed [0-9]", lines[0]);
        Assert.StartsWith($"h1 {summary.Experiment}: ", lines[0], StringComparison.Ordinal);
        if (SeedReports.Introduce(summary.Seed) is { } introduced)
        {
            Assert.Contains(introduced, lines.First(line => line.Contains($"seed {summary.Seed}", StringComparison.OrdinalIgnoreCase)), StringComparison.Ordinal);
        }

        // The first screen's labels: each tile figure's label, and the words a figure reads in place of a number.
        using var page = RenderedPage.Json(html);
        var figures = page.RootElement.GetProperty("blocks").EnumerateArray().Where(b => b.GetProperty("kind").GetString() == "tiles")
            .SelectMany(b => b.GetProperty("tiles").EnumerateArray()).SelectMany(t => t.GetProperty("figures").EnumerateArray()).ToList();
        var labels = figures.Select(f => f.GetProperty("label").GetString()!)
            .Concat(figures.Select(f => f.GetProperty("value").GetString()!).Where(value => value is ReportWriter.NoAnswer or ReportWriter.NoTelemetry))
            .Distinct().ToList();
        Assert.Equal(kind == "stopped", labels.Count == 0);
        if (labels.Count > 0)
        {
            // Defined once, in the legend under the tiles.
            var legend = Assert.Single(lines, line => line.StartsWith("p.legend ", StringComparison.Ordinal));
            Assert.All(labels, label => Assert.True(legend.Contains($"{label}: ", StringComparison.Ordinal), $"{kind}: the first screen's \"{label}\" is not defined on the page"));
        }
    }

    internal static RunSummary Summary(string kind) => kind switch
    {
        "fanout" => SyntheticReports.LoadRun("fanout", ["sync-over-async", "async"], 20, 5, (name, t) => name == "async" ? 100 : 100 + 40 * t).Analysed(),
        "fanout-timing-out" => SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (name, t) => name == "threadpool" && t >= 10 ? 90_000 : 100).Analysed(),
        "coldstart" => SyntheticReports.Burst(64, new Dictionary<string, int> { ["default-pool"] = 4, ["min-workers-200"] = 64 }).Analysed(),
        "find-capacity" => CapacityCurveTests.Search().Analysed(),
        "streaming" => (SyntheticReports.LoadRun("streaming", ["allocating", "saea-pooled"], 20, 5, (name, _) => name == "allocating" ? 3 : 1.5) with { Seed = "001", Words = ReportWords.Messages }).Analysed(),
        "no-answer" => SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (name, _) => name == "threadpool" ? 90_000 : 100).Analysed(),
        "run-url" => (SyntheticReports.LoadRun("run", ["GET /api/orders"], 20, 5, (_, t) => t >= 10 ? 2_000 : 100) with { Seed = "none (a user's service)" }).Analysed(),
        _ => (SyntheticReports.LoadRun("fanout", ["threadpool"], 20, 5, (_, _) => 100) with { Variants = [], Partial = PartialRun.Describe("threadpool", 0, 10, []) }).Analysed(),
    };

    /// <summary>Every number in <paramref name="text"/> (a count grouped in thousands read whole) reads one of <paramref name="fields"/>.</summary>
    internal static void AssertEveryNumberIsAField(string kind, string text, IReadOnlyList<double> fields)
    {
        var numbers = Number().Matches(text).Select(m => m.Value.Replace(",", "", StringComparison.Ordinal)).ToList();
        Assert.All(numbers, number => Assert.True(fields.Any(f => Reads(f, number)), $"{kind}: {number} on the first screen is no field of the summary ({text})"));
    }

    /// <summary>A number as the page prints it from a field: whole, to 1 or 2 decimals, or milliseconds as seconds.</summary>
    private static bool Reads(double field, string number) =>
        new[] { field, field / 1000 }.Any(value => new[] { "0", "0.#", "0.##" }.Any(format => value.ToString(format, CultureInfo.InvariantCulture) == number));

    /// <summary>Every number of the summary but its raw series (intervals, telemetry, requests, distributions), and the claims counted by verdict.</summary>
    internal static List<double> FieldsOf(RunSummary summary)
    {
        var fields = FieldsOfJson(summary.ToJson());
        // A search's steps are a series but for the hold's p50 and p99, which each step's tile gives.
        fields.AddRange((summary.Capacity?.Steps ?? []).SelectMany(s => new[] { s.P50Ms, s.P99Ms }).OfType<double>());
        var claims = summary.Claims ?? [];
        fields.Add(claims.Count);
        fields.AddRange(claims.GroupBy(c => c.Verdict).Select(g => (double)g.Count()));
        return fields;
    }

    /// <summary>Every number of a JSON document but its raw series (intervals, telemetry, requests, distributions).</summary>
    internal static List<double> FieldsOfJson(string json)
    {
        string[] series = ["intervals", "telemetry", "distribution", "burst", "curve", "steps", "observations", "evidence", "agents"];
        var fields = new List<double>();
        void Walk(JsonElement e, string name)
        {
            switch (e.ValueKind)
            {
                case JsonValueKind.Number:
                    fields.Add(e.GetDouble());
                    break;
                case JsonValueKind.Object when !series.Contains(name):
                    foreach (var p in e.EnumerateObject())
                    {
                        Walk(p.Value, p.Name);
                    }
                    break;
                case JsonValueKind.Array when !series.Contains(name):
                    foreach (var item in e.EnumerateArray())
                    {
                        Walk(item, name);
                    }
                    break;
            }
        }
        using var document = JsonDocument.Parse(json);
        Walk(document.RootElement, "");
        return fields;
    }

    // A number that is not part of a word ("p99", "x2"): "1.26", "60000", "67.3", a count grouped in thousands "3,895,458".
    [GeneratedRegex(@"(?<![\w.,])\d{1,3}(?:,\d{3})+(?![\w])|(?<![\w.])\d+(?:\.\d+)?(?![\w])")]
    private static partial Regex Number();

    private static string Value(ReportTile tile, string label) => tile.Figures.Single(f => f.Label == label).Value;

    public void Dispose()
    {
        if (Directory.Exists(_out))
        {
            Directory.Delete(_out, recursive: true);
        }
    }
}
