using System.Text.Json;
using ConcurrencySandbox.Api;
using ConcurrencySandbox.Api.Work;
using ConcurrencySandbox.Contracts.Machine;
using ConcurrencySandbox.Contracts.Statistics;
using ConcurrencySandbox.Contracts.Work;
using ConcurrencySandbox.Experiments.Work;

namespace ConcurrencySandbox.Tests.Work;

/// <summary>The sweep's and compare's answers flag impossible and noisy figures. Rows are fed directly: no timing.</summary>
public sealed class FigureFlagTests
{
    private static readonly ComparisonRow Impossible = Row(10, sync: new Spread(0.000029, 0.000028, 0.000030), taskRun: new Spread(0.000004, 0.000004, 0.0000041));
    private static readonly ComparisonRow Noisy = Row(1_000, sync: new Spread(0.001, 0.0009, 0.00125), taskRun: new Spread(0.0008, 0.00079, 0.00081));
    private static readonly ComparisonRow Clean = Row(1_000_000_000, sync: new Spread(2, 1.98, 2.02), taskRun: new Spread(1.02, 1.0, 1.05));

    [Theory]
    [InlineData("impossible", FlagKind.Impossible, "10 cycles: % efficiency", "725 %")]
    [InlineData("noisy", FlagKind.Noisy, "1,000 cycles: sync", "0.001 s")]
    public void AnEfficiencyAboveTwoCoresTimesHundredOrASpreadAboveTwentyPercentIsFlaggedAndNothingElse(string row, FlagKind kind, string figure, string value)
    {
        var flag = Assert.Single((row == "impossible" ? Impossible : Noisy).Flags("cycles", cores: 2));

        Assert.Equal(kind, flag.Kind);
        Assert.Equal(figure, flag.Figure);
        Assert.Equal(value, flag.Value);
    }

    [Fact]
    public void TheSameEfficiencyIsPossibleOnEightCores()
    {
        Assert.Empty(Impossible.Flags("cycles", cores: 8));
    }

    [Fact]
    public void ACleanRowIsNotFlagged()
    {
        Assert.Empty(Clean.Flags("cycles", cores: 2));
    }

    [Fact]
    public void MarkdownMarksTheFlaggedCellsAndListsTheFlagsUnderTheTable()
    {
        var lines = SweepFormat.ToMarkdown(Report(cores: 2)).Split('\n').Select(l => l.TrimEnd('\r')).ToList();

        Assert.StartsWith("| 10 | 0.0000290 | 0.0000040 | 725.00 (impossible) |", lines[2], StringComparison.Ordinal);
        Assert.StartsWith("| 1000 | 0.0010000 (noisy) | 0.0008000 | 125.00 |", lines[3], StringComparison.Ordinal);
        Assert.DoesNotContain("(", lines[4], StringComparison.Ordinal);
        var listed = lines.SkipWhile(l => !l.StartsWith("Flagged figures", StringComparison.Ordinal)).Where(l => l.StartsWith("- ", StringComparison.Ordinal)).ToList();
        Assert.Equal(2, listed.Count);
        Assert.StartsWith("- 10 cycles: % efficiency = 725 % (impossible): efficiency above 2 core(s)", listed[0], StringComparison.Ordinal);
        Assert.StartsWith("- 1,000 cycles: sync = 0.001 s (noisy): its repeats spread 35 %", listed[1], StringComparison.Ordinal);
    }

    [Fact]
    public void MarkdownWithoutFlagsHasNoFlagList()
    {
        Assert.DoesNotContain("Flagged figures", SweepFormat.ToMarkdown(Report(cores: 8, Clean)), StringComparison.Ordinal);
    }

    [Fact]
    public void CsvHasAFlagsColumnNamingTheFlaggedColumns()
    {
        var lines = SweepFormat.ToCsv(Report(cores: 2)).TrimEnd().Split('\n').Select(l => l.TrimEnd('\r')).ToList();

        Assert.EndsWith(",flags", lines[0], StringComparison.Ordinal);
        Assert.EndsWith(",efficiencyPercent impossible", lines[1], StringComparison.Ordinal);
        Assert.EndsWith(",syncSeconds noisy", lines[2], StringComparison.Ordinal);
        Assert.EndsWith(",", lines[3], StringComparison.Ordinal);
        Assert.All(lines, l => Assert.Equal(lines[0].Count(c => c == ','), l.Count(c => c == ',')));
    }

    [Fact]
    public void SweepJsonCarriesTheFlagsWithTheirKindAsAWord()
    {
        using var json = JsonDocument.Parse(JsonSerializer.Serialize(Report(cores: 2), SandboxJson.Options));

        var flags = json.RootElement.GetProperty("flags").EnumerateArray().ToList();
        Assert.Equal(["impossible", "noisy"], flags.Select(f => f.GetProperty("kind").GetString()));
        Assert.Equal(["10 cycles: % efficiency", "1,000 cycles: sync"], flags.Select(f => f.GetProperty("figure").GetString()));
        Assert.All(flags, f => Assert.False(string.IsNullOrWhiteSpace(f.GetProperty("reason").GetString())));
        Assert.Equal(3, json.RootElement.GetProperty("rows").GetArrayLength());
    }

    [Fact]
    public void CompareAnswerIsFlaggedAgainstTheProcessorCountItReports()
    {
        var onTwo = WorkEndpoints.CompareAnswer(WorkUnit.Compute, Impossible, processorCount: 2);
        var onEight = WorkEndpoints.CompareAnswer(WorkUnit.Compute, Impossible, processorCount: 8);

        Assert.Equal(FlagKind.Impossible, Assert.Single(onTwo.Flags).Kind);
        Assert.Empty(onEight.Flags);
    }

    private static SweepReport Report(int cores, params ComparisonRow[] rows) =>
        new("compute", "cycles", rows.Length > 0 ? rows : [Impossible, Noisy, Clean], 10, 1, MachineInfo.Current with { ProcessorCount = cores });

    private static ComparisonRow Row(long amount, Spread sync, Spread taskRun) =>
        new(amount, 3, sync.Median, taskRun.Median, sync.Median / taskRun.Median * 100, taskRun.Median - sync.Median, sync, taskRun, null);
}
