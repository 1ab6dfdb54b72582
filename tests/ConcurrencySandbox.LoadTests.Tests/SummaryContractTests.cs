using System.Text.Json;
using System.Text.Json.Nodes;
using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Reports;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>
/// summary.json has one description, <see cref="RunSummary"/>: the committed reports of its version must read back through
/// it exactly, and one of an earlier version is refused by <c>report</c> with one line naming the version it reads.
/// </summary>
public sealed class SummaryContractTests
{
    public static TheoryData<string> CommittedSummaries() => [.. CommittedSummaryFiles()];

    /// <summary>Every committed summary.json, relative to docs/results.</summary>
    public static IEnumerable<string> CommittedSummaryFiles()
    {
        var results = Path.Combine(FolderLayeringTests.RepositoryRoot(), "docs", "results");
        return Directory.GetFiles(results, "summary.json", SearchOption.AllDirectories).Select(file => Path.GetRelativePath(results, file)).Order(StringComparer.Ordinal);
    }

    [Theory]
    [MemberData(nameof(CommittedSummaries))]
    public void EveryCommittedSummaryOfThisVersionReadsBackThroughTheRecordWithNothingLeftOver(string file)
    {
        var json = File.ReadAllText(Path.Combine(FolderLayeringTests.RepositoryRoot(), "docs", "results", file));
        if (RunSummary.VersionOf(json) is { } version && version < RunSummary.CurrentVersion)
        {
            var refused = Assert.Throws<InvalidDataException>(() => ReportFolder.ReadSummary(Path.Combine(FolderLayeringTests.RepositoryRoot(), "docs", "results", file), file));
            Assert.Contains($"this runner reads version {RunSummary.CurrentVersion}", refused.Message);
            return;
        }

        var summary = RunSummary.Parse(json);

        Assert.Equal(RunSummary.CurrentVersion, summary.Version);
        Assert.True(JsonNode.DeepEquals(JsonNode.Parse(json), JsonNode.Parse(summary.ToJson())), $"{file} does not round-trip through RunSummary");
    }

    [Fact]
    public void AMemberTheRecordDoesNotKnowFailsTheRead()
    {
        var summary = WrittenSummary();
        summary["variants"]![0]!["p99Millis"] = summary["variants"]![0]!["p99Ms"]!.DeepClone();

        var error = Assert.Throws<JsonException>(() => RunSummary.Parse(summary.ToJsonString()));
        Assert.Contains("p99Millis", error.Message);
    }

    [Fact]
    public void AMissingMemberFailsTheRead()
    {
        var summary = WrittenSummary();
        summary["variants"]![0]!.AsObject().Remove("p99Ms");

        var error = Assert.Throws<JsonException>(() => RunSummary.Parse(summary.ToJsonString()));
        Assert.Contains("p99Ms", error.Message);
    }

    [Fact]
    public void NullWhereTheRecordAllowsNoneFailsTheRead()
    {
        var summary = WrittenSummary();
        summary["verdict"] = null;

        var error = Assert.Throws<JsonException>(() => RunSummary.Parse(summary.ToJsonString()));
        Assert.Contains("verdict", error.Message);
    }

    [Fact]
    public void ASummaryWrittenBeforeThePeakReadItsStepRowReadsWithThoseMembersDroppedAndNoneWritten()
    {
        var summary = WrittenSummary();
        Assert.All(summary["variants"]!.AsArray(), v => Assert.False(v!.AsObject().ContainsKey("sentAtPeak")));
        var earlier = summary["variants"]![0]!.AsObject();
        earlier["peakLoadMeanMs"] = 53334.4;
        earlier["sentAtPeak"] = JsonNode.Parse("""{"requests": 4, "completed": 4, "timedOut": 0, "connectionErrors": 0, "atLeastMeanMs": 53334.4}""");
        earlier["peakStepSeconds"] = JsonNode.Parse("[53.0, 60.0]");

        var read = RunSummary.Parse(summary.ToJsonString());

        Assert.DoesNotContain("peakLoadMeanMs", read.ToJson());
        Assert.Equal(read.Variants[0].Steps.First(s => s.Load == read.Variants[0].PeakLoad), read.Variants[0].PeakStep);
    }

    [Fact]
    public void ARetypedMemberFailsTheRead()
    {
        var summary = WrittenSummary();
        summary["variants"]![0]!["requests"] = "many";

        Assert.Throws<JsonException>(() => RunSummary.Parse(summary.ToJsonString()));
    }

    [Theory]
    [InlineData("""{"version": 4, "experiment": "fanout"}""", 4)]
    [InlineData("""{"schemaVersion": 2, "experiment": "fanout"}""", 2)]
    [InlineData("""{"experiment": "fanout"}""", null)]
    [InlineData("""[]""", null)]
    public void TheVersionIsReadBeforeTheLayoutIsTrusted(string json, int? version)
    {
        Assert.Equal(version, RunSummary.VersionOf(json));
    }

    /// <summary>A summary as the runner writes it, of a run with timed-out requests (its lower bounds) and steps.</summary>
    private static JsonObject WrittenSummary() =>
        JsonNode.Parse(SyntheticReports.LoadRun("fanout", ["threadpool", "async"], 20, 5, (name, t) => name == "threadpool" ? 500 * t : 100, timeoutMs: 5_000).Analysed().ToJson())!.AsObject();
}
