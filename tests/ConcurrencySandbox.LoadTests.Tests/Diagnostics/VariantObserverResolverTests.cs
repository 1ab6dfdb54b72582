using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>One observed run reads each module's IL and PDB once: its stack sample's grouping, hot methods and cause trace share one call-site resolver.</summary>
public sealed class VariantObserverResolverTests
{
    [FactOnLinux]
    [Trait("Category", "Slow")]
    public async Task AnObservedRunBuildsOneCallSiteResolverForItsStacksHotMethodsAndCauseTrace()
    {
        // This very process observed over a 3 s "load" at its peak from the first interval: the route window, the stack
        // sample (taken again while no pool thread is in user code, each attempt grouped) and the cause trace all run.
        await using var runtime = await RuntimeObserver.AttachAsync(DiagnosticsChannel.OfProcess(Environment.ProcessId), CancellationToken.None);
        await using var observer = new VariantObserver(runtime, Environment.ProcessorCount, peakLoad: 1, loadSeconds: 3);
        var key = new VariantKey("observed");
        observer.OnInterval(new IntervalRow(key, 0, "users", 1, 0, LatencyStats.Empty), CancellationToken.None);
        await Task.Delay(TimeSpan.FromSeconds(3));

        var (_, observation) = await observer.FinishAsync(new VariantResult(key, "/", "users", 3, [], [], LatencyStats.Empty));

        // Both users of a resolver ran: the stack sample's grouping (at least once) and the cause trace's reading after the load.
        Assert.False(observation.StacksNote?.StartsWith("the stack sample failed", StringComparison.Ordinal) ?? false, observation.StacksNote);
        Assert.True(observation.Causes is not null, observation.CauseTraceNote);
        Assert.Equal(1, observer.ResolversBuilt);
    }
}
