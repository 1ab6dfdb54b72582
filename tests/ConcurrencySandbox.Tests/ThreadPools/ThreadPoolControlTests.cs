using ConcurrencySandbox.Experiments.ThreadPools;
using ConcurrencySandbox.Tests.Hosting;

namespace ConcurrencySandbox.Tests.ThreadPools;

[Collection(ProcessWideCollection.Name)]
public sealed class ThreadPoolControlTests : IDisposable
{
    private readonly ThreadPoolLimits _original = ThreadPoolLimits.Read();
    private readonly ThreadPoolControl _control = new();

    public void Dispose() => Assert.True(_control.Apply(ThreadPoolChange.To(_original)).Applied);

    [Fact]
    public void RaisingTheMinimumChangesOnlyTheMinimum()
    {
        var result = _control.Apply(new ThreadPoolChange(MinWorkerThreads: _original.MinWorkerThreads + 7));

        Assert.True(result.Applied);
        Assert.Equal(_original with { MinWorkerThreads = _original.MinWorkerThreads + 7 }, ThreadPoolLimits.Read());
    }

    [Fact]
    public void AMinimumAboveTheCurrentMaximumIsAppliedWhenTheMaximumRisesWithIt()
    {
        _control.Apply(new ThreadPoolChange(MaxWorkerThreads: _original.MinWorkerThreads + 10));

        var result = _control.Apply(new ThreadPoolChange(MinWorkerThreads: _original.MinWorkerThreads + 20, MaxWorkerThreads: _original.MinWorkerThreads + 30));

        Assert.True(result.Applied);
        Assert.Equal(_original.MinWorkerThreads + 20, ThreadPoolLimits.Read().MinWorkerThreads);
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
        _control.Apply(new ThreadPoolChange(MinWorkerThreads: _original.MinWorkerThreads + 5, MinIoThreads: _original.MinIoThreads + 5));

        Assert.True(_control.Reset().Applied);

        Assert.Equal(_original, ThreadPoolLimits.Read());
    }

    [Fact]
    public void StartupSettingsBecomeWhatResetReturnsTo()
    {
        _control.ApplyAtStartup(new ThreadPoolChange(MinWorkerThreads: _original.MinWorkerThreads + 3));
        _control.Apply(new ThreadPoolChange(MinWorkerThreads: _original.MinWorkerThreads + 9));

        _control.Reset();

        Assert.Equal(_original.MinWorkerThreads + 3, ThreadPoolLimits.Read().MinWorkerThreads);
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
