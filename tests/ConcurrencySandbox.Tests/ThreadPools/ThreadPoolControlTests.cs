using ConcurrencySandbox.Contracts.ThreadPools;
using ConcurrencySandbox.Experiments.ThreadPools;
using ConcurrencySandbox.Tests.Hosting;

namespace ConcurrencySandbox.Tests.ThreadPools;

[Collection(ProcessWideCollection.Name)]
public sealed class ThreadPoolControlTests : RestoresThreadPoolLimits
{
    private readonly ThreadPoolControl _control = new();

    [Fact]
    public void RaisingTheMinimumChangesOnlyTheMinimum()
    {
        var result = _control.Apply(new ThreadPoolChange(MinWorkerThreads: Original.MinWorkerThreads + 7));

        Assert.True(result.Applied);
        Assert.Equal(Original with { MinWorkerThreads = Original.MinWorkerThreads + 7 }, ThreadPoolLimits.Read());
    }

    [Fact]
    public void AMinimumAboveTheCurrentMaximumIsAppliedWhenTheMaximumRisesWithIt()
    {
        _control.Apply(new ThreadPoolChange(MaxWorkerThreads: Original.MinWorkerThreads + 10));

        var result = _control.Apply(new ThreadPoolChange(MinWorkerThreads: Original.MinWorkerThreads + 20, MaxWorkerThreads: Original.MinWorkerThreads + 30));

        Assert.True(result.Applied);
        Assert.Equal(Original.MinWorkerThreads + 20, ThreadPoolLimits.Read().MinWorkerThreads);
    }

    [Fact]
    public void ARuntimeRefusalIsReportedAndTheOldLimitsPutBack()
    {
        var refusing = new RefusingSettings(new ThreadPoolLimits(2, 2, 100, 1000));
        var refusingControl = new ThreadPoolControl(refusing);

        var result = refusingControl.Apply(new ThreadPoolChange(MinWorkerThreads: 50, MaxWorkerThreads: 200));

        Assert.False(result.Applied);
        Assert.Contains("SetMinThreads(workerThreads: 50", result.Refusal);
        Assert.Equal(new ThreadPoolLimits(2, 2, 100, 1000), refusing.Read());
    }

    [Fact]
    public void ResetReturnsToTheStartupLimits()
    {
        _control.Apply(new ThreadPoolChange(MinWorkerThreads: Original.MinWorkerThreads + 5, MinIoThreads: Original.MinIoThreads + 5));

        Assert.True(_control.Reset().Applied);

        Assert.Equal(Original, ThreadPoolLimits.Read());
    }

    [Fact]
    public void StartupSettingsBecomeWhatResetReturnsTo()
    {
        _control.ApplyAtStartup(new ThreadPoolChange(MinWorkerThreads: Original.MinWorkerThreads + 3));
        _control.Apply(new ThreadPoolChange(MinWorkerThreads: Original.MinWorkerThreads + 9));

        _control.Reset();

        Assert.Equal(Original.MinWorkerThreads + 3, ThreadPoolLimits.Read().MinWorkerThreads);
    }

    /// <summary>Accepts maximums but refuses every minimum, as a runtime with forced settings might.</summary>
    private sealed class RefusingSettings(ThreadPoolLimits limits) : IThreadPoolSettings
    {
        public ThreadPoolLimits Read() => limits;

        public bool TrySetMin(int workerThreads, int ioThreads) => false;

        public bool TrySetMax(int workerThreads, int ioThreads)
        {
            limits = limits with { MaxWorkerThreads = workerThreads, MaxIoThreads = ioThreads };
            return true;
        }
    }
}
