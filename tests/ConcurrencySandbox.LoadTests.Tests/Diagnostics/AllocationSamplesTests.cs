using System.Diagnostics.Tracing;
using ConcurrencySandbox.LoadTests.Diagnostics;
using Microsoft.Diagnostics.Tracing.Parsers;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>The cause trace's allocation samples: which events it asks a runtime for, and what one sample stands for.</summary>
public sealed class AllocationSamplesTests
{
    [Fact]
    public void OnDotNet10TheTraceAsksForTheAllocationSamplesAloneNotEveryVerboseGcEvent()
    {
        var runtime = Assert.Single(CauseTrace.Providers(allocationSampling: true), p => p.Name == ClrTraceEventParser.ProviderName);

        Assert.Equal((long)ClrTraceEventParser.Keywords.AllocationSampling, runtime.Keywords);
        Assert.Equal(EventLevel.Informational, runtime.EventLevel);
    }

    [Fact]
    public void BeforeDotNet10TheTraceAsksForTheGcKeywordsAllocationTicks()
    {
        var runtime = Assert.Single(CauseTrace.Providers(allocationSampling: false), p => p.Name == ClrTraceEventParser.ProviderName);

        Assert.Equal((long)ClrTraceEventParser.Keywords.GC, runtime.Keywords);
        Assert.Equal(EventLevel.Verbose, runtime.EventLevel);
    }

    [Theory]
    [InlineData(24, 102_400)]            // a small object is rarely sampled: each sample stands for the mean distance between samples
    [InlineData(10_000_000, 10_000_000)] // an object far larger than the mean is always sampled: it stands for itself
    public void ASampleStandsForItsObjectOverItsChanceOfBeingSampled(long objectBytes, double represented) =>
        Assert.Equal(represented, CauseTrace.Represented(objectBytes), represented * 0.001);
}
