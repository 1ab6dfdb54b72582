using ConcurrencySandbox.Contracts.Reports;
using ConcurrencySandbox.LoadTests.Cli;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>
/// Issue 37 item 6: the quick run and --find-capacity, both under --launch on one blocking target, agree on whether it
/// broke and, if so, within one of the quick profile's steps (4 users) of where. On main's search (each step's whole load
/// put on a fresh pool at once) InlinedHelper held 40 users in the quick run and 7 in the search.
/// </summary>
public sealed class QuickAgreesWithSearchTests
{
    /// <summary>The quick profile's users between two steps: "within one step" of each other.</summary>
    private const double QuickStepUsers = 4;

    [Fact]
    [Trait("Category", "Slow")]
    public async Task TheQuickRunAndTheSearchAgreeOnWhetherAndWhereABlockingServiceBroke()
    {
        var target = Path.Combine(AppContext.BaseDirectory, "targets", "InlinedHelper", "InlinedHelper.dll");
        var quick = await HeadlineLoadAsync(target, "--profile", "quick");
        // Up to the quick profile's peak, so both try the same loads.
        var search = await HeadlineLoadAsync(target, "--find-capacity", "--step-s", "3", "--max-load", "40", "--max-duration-s", "400");

        Assert.True(quick.BrokeAt.HasValue == search.BrokeAt.HasValue, $"quick: {quick.Headline} | search: {search.Headline}");
        if (quick.BrokeAt is { } quickBroke && search.BrokeAt is { } searchBroke)
        {
            Assert.True(Math.Abs(quickBroke - searchBroke) <= QuickStepUsers, $"quick: {quick.Headline} | search: {search.Headline}");
        }
        else
        {
            Assert.True(Math.Abs(quick.Held!.Value - search.Held!.Value) <= QuickStepUsers, $"quick: {quick.Headline} | search: {search.Headline}");
        }
    }

    /// <summary>One run --url under --launch: the headline's load held and load that broke (null when none did), as summary.json keeps them.</summary>
    private static async Task<(double? Held, double? BrokeAt, string Headline)> HeadlineLoadAsync(string target, params string[] arguments)
    {
        var folder = Directory.CreateTempSubdirectory("agree-").FullName;
        try
        {
            var (output, error) = (new StringWriter(), new StringWriter());
            string[] run = ["run", "--url", $"http://127.0.0.1:{FindCapacityTests.FreePort()}/orders/1", "--launch", target, .. arguments, "--out", folder];
            var code = await CommandLine.InvokeAsync(run, output, error, (_, _) => throw new InvalidOperationException("run --url has its own action"));
            Assert.True(code == CommandLine.ExitOk, $"exit {code}: {error}");
            var summary = RunSummary.Parse(File.ReadAllText(Path.Combine(folder, "summary.json")));
            double? Figure(string name) => summary.HeadlineFigures?.FirstOrDefault(f => f.Name == name)?.Value;
            return (Figure("held"), Figure("broke at"), summary.Headline ?? "");
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }
}
