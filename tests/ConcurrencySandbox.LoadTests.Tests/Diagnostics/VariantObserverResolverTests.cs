using System.Runtime.CompilerServices;
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

    [FactOnLinux]
    [Trait("Category", "Slow")]
    public async Task AStackSampleThatFindsAPoolThreadInUserCodeNamesItsCallSitesAfterTheLoadOnly()
    {
        // A pool thread of this process runs its own code for the whole "load" (30 s, so the sample ends while it runs):
        // the sample shows it in user code, so nothing is to be looked at again and the call sites (the resolver's IL and
        // PDB reads) wait for the load's end instead of taking a core from the service under it.
        using var stop = new CancellationTokenSource();
        var spinning = Task.Run(() => SpinUntil(stop.Token));
        await using var runtime = await RuntimeObserver.AttachAsync(DiagnosticsChannel.OfProcess(Environment.ProcessId), CancellationToken.None);
        await using var observer = new VariantObserver(runtime, Environment.ProcessorCount, peakLoad: 1, loadSeconds: 30);
        var key = new VariantKey("observed");
        observer.OnInterval(new IntervalRow(key, 0, "users", 1, 0, LatencyStats.Empty), CancellationToken.None);
        for (var waited = 0; waited < 600 && !observer.StackSampleTaken; waited++)
        {
            await Task.Delay(100);
        }

        Assert.True(observer.StackSampleTaken, "no stack sample within 60 s");
        Assert.Equal(0, observer.ResolversBuilt);
        var (_, observation) = await observer.FinishAsync(new VariantResult(key, "/", "users", 30, [], [], LatencyStats.Empty));
        await stop.CancelAsync();
        await spinning;
        Assert.True(observation.Stacks is { AnyInUserCode: true }, observation.StacksNote);
        Assert.Null(observation.StacksNote);
        Assert.Equal(1, observer.ResolversBuilt);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void SpinUntil(CancellationToken stop)
    {
        while (!stop.IsCancellationRequested)
        {
            Thread.SpinWait(1000);
        }
    }
}
