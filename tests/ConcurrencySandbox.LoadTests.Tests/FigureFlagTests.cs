using System.Text.Json;
using ConcurrencySandbox.Contracts.Statistics;
using ConcurrencySandbox.Contracts.Work;
using ConcurrencySandbox.LoadTests.Matrix;

namespace ConcurrencySandbox.LoadTests.Tests;

public class FigureFlagTests
{
    [Fact]
    public void SweepFromTheApiIsFlaggedByTheSharedRuleAgainstTheCoresTheApiReallyHad()
    {
        using var document = JsonDocument.Parse("""
            { "machine": { "processorCount": 2 }, "rows": [
              { "amount": 10, "targetHalfWidthPercent": 5, "stopped": "budgetSpent",
                "sync": { "median": 0.000029, "low": 0.00002, "high": 0.00006, "count": 8, "min": 0.00002 },
                "taskRun": { "median": 0.000004, "low": 0.00000398, "high": 0.00000402, "count": 8, "min": 0.0000039 },
                "efficiency": { "median": 725, "low": 710, "high": 740, "count": 8, "min": 700 },
                "load": { "seconds": 1, "otherProcessesPercent": 2, "stealPercent": 0 } },
              { "amount": 1000000000, "targetHalfWidthPercent": 5,
                "sync": { "median": 2, "low": 1.99, "high": 2.01, "count": 8, "min": 1.98 },
                "taskRun": { "median": 1.02, "low": 1.01, "high": 1.03, "count": 8, "min": 1.0 },
                "efficiency": { "median": 196, "low": 194, "high": 198, "count": 8, "min": 190 },
                "load": { "seconds": 1, "otherProcessesPercent": 30, "stealPercent": 0, "throttledPeriods": 0, "throttledSeconds": 0 } } ] }
            """);
        var sweep = document.Deserialize<SweepReport>(new JsonSerializerOptions(JsonSerializerDefaults.Web))!;

        var flags = MatrixRunner.Flags([new CoreCountRun(2, null, sweep.ProcessorCount, sweep.Rows, null, null)]);

        Assert.Equal(StopReason.BudgetSpent, sweep.Rows[0].Stopped); // the API writes the reason as a camelCase word
        Assert.Equal(3, flags.Count);
        Assert.Contains(flags, f => f.Kind == FlagKind.Impossible && f.Figure == "2 cores, 10 cycles: % efficiency" && f.Value == "725 % [710, 740] n=8, min 700");
        Assert.Contains(flags, f => f.Kind == FlagKind.Inconclusive && f.Figure == "2 cores, 10 cycles: sync");
        Assert.Contains(flags, f => f.Kind == FlagKind.Busy && f.Figure == "2 cores, 1,000,000,000 cycles: machine");
    }
}
