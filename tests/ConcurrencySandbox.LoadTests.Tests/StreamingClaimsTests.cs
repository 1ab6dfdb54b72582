using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.Contracts.Streaming;
using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Experiments;
using ConcurrencySandbox.LoadTests.Experiments.Streaming;
using ConcurrencySandbox.LoadTests.Reports;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>Seed 001's three claims each get a line with its figure and interval; the diagnosis and thresholds say where they do not apply.</summary>
public sealed class StreamingClaimsTests
{
    private static readonly StreamingLoad Load = StreamingLoad.Seed001Shape with { Clients = 10 };

    [Fact]
    public void GarbageGoneButTheHeapNotHalvedAndMoreCpuIsPartlyReproducedWithALinePerClaim()
    {
        // Pooled: 10 B per message against 1000 (garbage gone), a heap of 15 MB against 10 (not halved), 13 us of CPU against 12 (more).
        var allocating = Run(bytesPerMessage: 1000, heapMb: 10, cpuMicroseconds: 12);
        var pooled = Run(bytesPerMessage: 10, heapMb: 15, cpuMicroseconds: 13);

        var claims = StreamingClaims.Judge(allocating, [("saea-pooled", pooled)]);
        var finding = Finding.OfClaims(claims, [], "timing.");

        Assert.Equal(
            [("garbage gone", ClaimVerdict.Confirmed), ("heap halved", ClaimVerdict.Refuted), ("less CPU", ClaimVerdict.Refuted)],
            claims.Select(c => (c.What, c.Verdict)));
        Assert.StartsWith("Partly reproduced: ", finding.Verdict);
        Assert.StartsWith("saea-pooled 150 % [", claims[1].Figure);
        Assert.StartsWith("heap halved: refuted: saea-pooled 150 % [", claims[1].Line);
    }

    [Fact]
    public void APooledVariantAllocatingBelowIdleDroppedToNoneNotANegativeShareNorNoDifference()
    {
        // Net of idle, a pooled server's bytes per message are below 0 (the idle process's own share was the larger): a drop
        // to none within noise. It read "garbage gone: confirmed: saea-pooled no difference measured (...)", backwards.
        var allocating = Run(bytesPerMessage: 1000, heapMb: 10, cpuMicroseconds: 12);
        var pooled = Run(bytesPerMessage: -3, heapMb: 5, cpuMicroseconds: 6);

        var garbage = StreamingClaims.Judge(allocating, [("saea-pooled", pooled)]).Single(c => c.What == "garbage gone");

        Assert.Equal(ClaimVerdict.Confirmed, garbage.Verdict);
        Assert.StartsWith("garbage gone: confirmed: saea-pooled dropped to none within noise (measured -0.3 % [", garbage.Line, StringComparison.Ordinal);
        Assert.DoesNotContain(Noise.NoDifference, garbage.Line, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(39)]
    [InlineData(2026)]
    public void EachClaimsWordsAgreeWithItsVerdict(int seed)
    {
        // Seeded pooled figures from below idle to allocating's own: "dropped to none" only under a confirmed claim (a
        // measured drop), "no difference measured" only where the claims' rule found none confirmed.
        var random = new Random(seed);
        var allocating = Run(bytesPerMessage: 1000, heapMb: 10, cpuMicroseconds: 12);
        var seen = new HashSet<string>();
        for (var i = 0; i < 40; i++)
        {
            var bytes = random.Next(4) switch { 0 => -random.Next(1, 20), 1 => random.Next(0, 150), 2 => random.Next(150, 900), _ => random.Next(900, 1100) };
            var pooled = Run(bytesPerMessage: bytes, heapMb: 1 + (random.NextDouble() * 12), cpuMicroseconds: 6 + (random.NextDouble() * 12), cpuSpreadMicroseconds: random.NextDouble() * 3);
            foreach (var claim in StreamingClaims.Judge(allocating, [("saea-pooled", pooled)]))
            {
                var where = $"seed {seed}, {bytes} B: {claim.Line}";
                if (claim.Figure.Contains(Share.DroppedToNone, StringComparison.Ordinal))
                {
                    Assert.True(claim.Verdict == ClaimVerdict.Confirmed, where);
                    seen.Add("dropped");
                }
                if (claim.Figure.Contains(Noise.NoDifference, StringComparison.Ordinal))
                {
                    Assert.True(claim.Verdict != ClaimVerdict.Confirmed, where);
                    seen.Add("no difference");
                }
                Assert.DoesNotContain("saea-pooled -", claim.Figure, StringComparison.Ordinal);
            }
        }
        Assert.Equal(["dropped", "no difference"], seen.Order());
    }

    [Fact]
    public void AnIntervalThatStraddlesTheLineLeavesTheClaimInconclusive()
    {
        // Pooled CPU per message from 10 to 14 us against allocating's steady 12: some windows less, some more.
        var allocating = Run(bytesPerMessage: 1000, heapMb: 10, cpuMicroseconds: 12);
        var pooled = Run(bytesPerMessage: 10, heapMb: 5, cpuMicroseconds: 12, cpuSpreadMicroseconds: 2);

        var cpu = StreamingClaims.Judge(allocating, [("saea-pooled", pooled)]).Single(c => c.What == "less CPU");

        Assert.Equal(ClaimVerdict.Inconclusive, cpu.Verdict);
        Assert.Contains("straddles", cpu.Why);
    }

    [Fact]
    public void TooFewSteadyWindowsGiveNoIntervalAndNoVerdict()
    {
        var allocating = Run(bytesPerMessage: 1000, heapMb: 10, cpuMicroseconds: 12, windows: 3);
        var pooled = Run(bytesPerMessage: 10, heapMb: 5, cpuMicroseconds: 6, windows: 3);

        Assert.All(StreamingClaims.Judge(allocating, [("saea-pooled", pooled)]), c => Assert.Equal(ClaimVerdict.Inconclusive, c.Verdict));
    }

    [Fact]
    public void TheStreamingReportSaysWhyTheStarvationDiagnosisDoesNotApplyAndGivesNoPoolSizingAdvice()
    {
        var run = SyntheticReports.LoadRun("streaming", ["allocating", "saea-pooled"], 10, 5, (_, _) => 1);
        var report = run with
        {
            Variants = [.. run.Variants.Select(v => v with { TelemetrySource = "the API's own per-second record" })],
            Observations = new Dictionary<string, VariantObservation> { ["allocating"] = new("pid 1", 5, 1, [], null, null, null, null) },
            DiagnosisDoesNotApplyBecause = new StreamingExperiment(Load, new StreamingPinning(null, null, "test")).DiagnosisDoesNotApplyBecause,
        };

        var markdown = ReportWriter.SummaryMarkdown(report.Analysed());

        Assert.Contains("No starvation diagnosis: the starvation diagnosis does not apply to a TCP push stream", markdown);
        Assert.DoesNotContain("MinWorkerThreads=", markdown);
    }

    [Fact]
    public void ARunWithNoThresholdsSaysSoInsteadOfAllPassedBesideAnEmptyTable()
    {
        var report = SyntheticReports.LoadRun("streaming", ["allocating", "saea-pooled"], 10, 5, (_, _) => 1) with { Thresholds = [] };

        var markdown = ReportWriter.SummaryMarkdown(report.Analysed());
        var html = ReportWriter.ReportHtml(report.Analysed());

        Assert.Contains(ReportWriter.NoThresholds, markdown);
        Assert.Contains("No thresholds: ", html);
        Assert.DoesNotContain("All thresholds passed", html);
        Assert.DoesNotContain("| threshold | variant |", markdown);
    }

    [Fact]
    public void NoStreamingVariantIsExpectedToFail()
    {
        var experiment = new StreamingExperiment(Load, new StreamingPinning(null, null, "test"));

        Assert.Empty(experiment.ExpectedToFail);
        Assert.NotNull(experiment.DiagnosisDoesNotApplyBecause);
    }

    /// <summary>A run whose steady state has <paramref name="windows"/> 10 s windows of 1000 messages each, and an idle window that allocated nothing.</summary>
    private static StreamingResult Run(double bytesPerMessage, double heapMb, double cpuMicroseconds, double cpuSpreadMicroseconds = 0, int windows = 8)
    {
        var samples = new List<StreamingSample>();
        var (allocated, cpuMs) = (0.0, 0.0);
        for (var i = 0; i <= windows; i++)
        {
            if (i > 0)
            {
                // A small spread per window so each figure's interval has width; the CPU spread alternates around its mean.
                allocated += 1000 * bytesPerMessage * (1 + 0.01 * (i % 3));
                cpuMs += 1000 * (cpuMicroseconds + (i % 2 == 0 ? cpuSpreadMicroseconds : -cpuSpreadMicroseconds) + 0.01 * (i % 3)) / 1000;
            }
            samples.Add(Sample(10 * i, 1000 * i, (long)allocated, cpuMs, (long)(heapMb * 1e6 * (1 + 0.01 * (i % 3)))));
        }
        return new StreamingResult(Load, [Sample(0, 0, 0, 0, 0), Sample(10, 0, 0, 0, 0)], samples, new StreamingClientsReading(10, 10, 1000 * windows, 0, 0, 0, 0, 0, [], 0, 1, Final: true));
    }

    private static StreamingSample Sample(double seconds, long messages, long allocatedBytes, double cpuMs, long heapBytes) => new(
        seconds,
        new StreamingServerCounters(ConnectedClients: Load.Clients, Load.Clients, 0, 0, 0, messages, 0, 0, 0, [], 0, 0),
        new StreamingProcessFigures(allocatedBytes, 0, 0, 0, 0, cpuMs, 0, heapBytes, 0, 0));

    [Fact]
    public void OneClaimConfirmedBesideTwoInconclusiveIsPartlyReproducedNeverReproduced()
    {
        // streaming-quick-quiet said "Reproduced" over garbage gone confirmed, heap halved and less CPU inconclusive.
        IReadOnlyList<Claim> claims =
        [
            new("garbage gone", ClaimVerdict.Confirmed, "-0.3 %", "[-1.2, 0.1]", "every interval at or below the line; the claim: ..."),
            new("heap halved", ClaimVerdict.Inconclusive, "66.6 %", "[55.7, 87.7]", "an interval straddles the line; the claim: ..."),
            new("less CPU", ClaimVerdict.Inconclusive, "88.2 %", "[60, 129]", "an interval straddles the line; the claim: ..."),
        ];

        var finding = Finding.OfClaims(claims, [], "timing.");
        var allConfirmed = Finding.OfClaims([.. claims.Select(c => c with { Verdict = ClaimVerdict.Confirmed })], [], "timing.");

        Assert.Equal(Outcome.Inconclusive, finding.Outcome);
        Assert.True(finding.Partly);
        Assert.StartsWith("Partly reproduced: 1 of 3 claims confirmed, 2 inconclusive (heap halved: an interval straddles the line; less CPU: an interval straddles the line): timing.", finding.Verdict, StringComparison.Ordinal);
        Assert.Equal(Outcome.Reproduced, allConfirmed.Outcome);
        Assert.StartsWith("Reproduced: timing.", allConfirmed.Verdict, StringComparison.Ordinal);
    }

    [Fact]
    public void TheCommittedStreamingRunRenderedAgainSaysPartlyReproducedOnEveryPageAndInItsFirstSentence()
    {
        var file = Path.Combine(FolderLayeringTests.RepositoryRoot(), "docs", "results", "streaming-quick-quiet", ReportWriter.SummaryFileName);
        var committed = RunSummary.Parse(File.ReadAllText(file));

        var summary = RunAnalysis.Reworded(committed);

        Assert.Equal(nameof(Outcome.Inconclusive), summary.Outcome);
        Assert.StartsWith("Partly reproduced: 1 of 3 claims confirmed, 2 inconclusive (heap halved: an interval straddles the line; less CPU: an interval straddles the line): ", summary.Verdict, StringComparison.Ordinal);
        // The rest of the run's sentence as it wrote it.
        Assert.EndsWith(committed.Verdict[committed.Verdict.IndexOf(": ", StringComparison.Ordinal)..], summary.Verdict, StringComparison.Ordinal);
        Assert.Contains("partly reproduced: 1 of 3 claims confirmed, 2 inconclusive", summary.Answer, StringComparison.Ordinal);
        var lines = RenderedPage.Lines(ReportWriter.ReportHtml(summary));
        Assert.Contains($"p.verdict {summary.Verdict}", lines);
        Assert.Contains(summary.Verdict, ReportWriter.SummaryMarkdown(summary), StringComparison.Ordinal);
        // The same words twice render the same: the rule is stable on its own output.
        Assert.Equal(summary.Verdict, RunAnalysis.Reworded(summary).Verdict);
    }
}
