using System.Text.Json;
using System.Text.Json.Nodes;
using ConcurrencySandbox.Contracts.Reports;

namespace ConcurrencySandbox.LoadTests.Tests;

/// <summary>summary.json has one description, <see cref="RunSummary"/>: the committed reports must read back through it exactly.</summary>
public sealed class SummaryContractTests
{
    public static TheoryData<string> CommittedSummaries()
    {
        var results = Path.Combine(FolderLayeringTests.RepositoryRoot(), "docs", "results");
        return [.. Directory.GetFiles(results, "summary.json", SearchOption.AllDirectories).Select(file => Path.GetRelativePath(results, file)).Order(StringComparer.Ordinal)];
    }

    [Theory]
    [MemberData(nameof(CommittedSummaries))]
    public void EveryCommittedSummaryReadsBackThroughTheRecordWithNothingLeftOver(string file)
    {
        var json = File.ReadAllText(Path.Combine(FolderLayeringTests.RepositoryRoot(), "docs", "results", file));

        var summary = RunSummary.Parse(json);

        Assert.Equal(RunSummary.CurrentSchemaVersion, summary.SchemaVersion);
        Assert.True(JsonNode.DeepEquals(JsonNode.Parse(json), JsonNode.Parse(summary.ToJson())), $"{file} does not round-trip through RunSummary");
    }

    [Fact]
    public void AMemberTheRecordDoesNotKnowFailsTheRead()
    {
        var summary = CommittedSummary();
        summary["variants"]![0]!["p99Millis"] = summary["variants"]![0]!["p99Ms"]!.DeepClone();

        var error = Assert.Throws<JsonException>(() => RunSummary.Parse(summary.ToJsonString()));
        Assert.Contains("p99Millis", error.Message);
    }

    [Fact]
    public void AMissingMemberFailsTheRead()
    {
        var summary = CommittedSummary();
        summary["variants"]![0]!.AsObject().Remove("p99Ms");

        var error = Assert.Throws<JsonException>(() => RunSummary.Parse(summary.ToJsonString()));
        Assert.Contains("p99Ms", error.Message);
    }

    [Fact]
    public void NullWhereTheRecordAllowsNoneFailsTheRead()
    {
        var summary = CommittedSummary();
        summary["verdict"] = null;

        var error = Assert.Throws<JsonException>(() => RunSummary.Parse(summary.ToJsonString()));
        Assert.Contains("verdict", error.Message);
    }

    [Fact]
    public void ARetypedMemberFailsTheRead()
    {
        var summary = CommittedSummary();
        summary["variants"]![0]!["requests"] = "many";

        Assert.Throws<JsonException>(() => RunSummary.Parse(summary.ToJsonString()));
    }

    [Theory]
    [InlineData("""{"schemaVersion": 2, "experiment": "fanout"}""", 2)]
    [InlineData("""{"experiment": "fanout"}""", null)]
    [InlineData("""[]""", null)]
    public void TheSchemaVersionIsReadBeforeTheLayoutIsTrusted(string json, int? version)
    {
        Assert.Equal(version, RunSummary.SchemaVersionOf(json));
    }

    private static JsonObject CommittedSummary() =>
        JsonNode.Parse(File.ReadAllText(Path.Combine(FolderLayeringTests.RepositoryRoot(), "docs", "results", "fanout-quick", "summary.json")))!.AsObject();
}
