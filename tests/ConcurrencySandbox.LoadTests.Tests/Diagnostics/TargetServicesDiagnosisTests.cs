using System.Text.Json;
using ConcurrencySandbox.LoadTests.Cli;
using ConcurrencySandbox.LoadTests.Diagnostics;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>
/// The runner as a new user runs it (<c>run --url</c>, the process found by its port) against the three small services
/// of tests/Targets, each blocking in a different shape: the report must name the method the developer wrote that
/// blocks, with its file:line (the named line is read back from the source to hold the blocking call), its route and
/// what it blocks on.
/// </summary>
[Trait("Category", "Slow")]
public sealed class TargetServicesDiagnosisTests
{
    // 16 users for 6 s: more than the pool's first threads, so the peak's stacks catch most of them blocked.
    private const string Load = """{ "ReportingInterval": "00:00:01", "LoadSimulationsSettings": [ { "KeepConstant": [16, "00:00:06"] } ] }""";

    [FactOnLinux]
    public async Task AOneLineHelperTheJitInlinedIntoAMinimalApiLambdaIsNamed()
    {
        var (call, frames) = await DiagnoseAsync("InlinedHelper", "orders/1");

        Assert.Equal("Blocking.DoBlocking", call.Method);
        // Inlined: no sampled frame is the helper, and the report says where it went.
        Assert.Equal("the lambda in Program (top-level statements)", call.InlinedInto);
        Assert.DoesNotContain(frames, f => f.EndsWith("Blocking.DoBlocking", StringComparison.Ordinal));
        Assert.Equal(BlockingPrimitive.Result, call.Primitive);
        Assert.Equal("GET /orders/{id:int}", call.Route);
        AssertLineHolds(call, "DoAsync(id).Result");
    }

    [FactOnLinux]
    public async Task ASynchronousHttpSendInALinqLambdaTwoFramesBelowAControllerActionIsNamed()
    {
        var (call, _) = await DiagnoseAsync("ControllerLinq", "orders/1");

        Assert.Equal("CatalogClient.Lookup", call.Method);
        Assert.Equal(BlockingPrimitive.HttpSend, call.Primitive);
        Assert.Equal("GET /orders/{id:int}", call.Route);
        AssertLineHolds(call, "_http.Send(");
    }

    [FactOnLinux]
    public async Task ALockHeldAcrossAThreadSleepIsNamed()
    {
        var (call, _) = await DiagnoseAsync("LockSleep", "inventory/1");

        Assert.Equal("Inventory.Reserve", call.Method);
        Assert.Equal(BlockingPrimitive.Lock, call.Primitive);
        Assert.Equal("GET /inventory/{id:int}", call.Route);
        AssertLineHolds(call, "lock (Gate)");
    }

    private static void AssertLineHolds(BlockingCall call, string code)
    {
        Assert.NotNull(call.Line);
        Assert.Null(call.Note);
        var text = File.ReadAllLines(call.Line.File)[call.Line.Line - 1];
        Assert.Contains(code, text);
    }

    /// <summary>Runs <c>run --url</c> against the target and returns the report's top call site and the frames of every thread the summary lists.</summary>
    private static async Task<(BlockingCall Call, IReadOnlyList<string> Frames)> DiagnoseAsync(string target, string path)
    {
        await using var service = await SampleServiceProcess.StartTargetAsync(target);
        var folder = Directory.CreateTempSubdirectory("targets-").FullName;
        try
        {
            var config = Path.Combine(folder, "load.json");
            await File.WriteAllTextAsync(config, Load);
            var (output, error) = (new StringWriter(), new StringWriter());
            var code = await CommandLine.InvokeAsync(
                ["run", "--url", $"{service.BaseAddress}{path}", "--config", config, "--out", Path.Combine(folder, "report")], output, error, (_, _) => throw new InvalidOperationException("run --url has its own action"));

            Assert.True(code == CommandLine.ExitOk, $"exit {code}: {error}");
            var summary = await File.ReadAllTextAsync(Path.Combine(folder, "report", "summary.md"));
            using var json = JsonDocument.Parse(await File.ReadAllTextAsync(Path.Combine(folder, "report", "summary.json")));
            var stacks = json.RootElement.GetProperty("observations").EnumerateObject().Single().Value.GetProperty("stacks");
            var top = stacks.GetProperty("sites").EnumerateArray().First(s => s.GetProperty("inUserCode").GetBoolean());
            var call = top.GetProperty("source").Deserialize<BlockingCall>(new JsonSerializerOptions(JsonSerializerDefaults.Web))!;
            Assert.Contains(call.Describe(), summary);
            return (call, [.. stacks.GetProperty("sites").EnumerateArray().Select(s => s.GetProperty("callSite").GetString()!)]);
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }
}
