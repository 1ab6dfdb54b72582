using ConcurrencySandbox.Contracts.ThreadPools;
using ConcurrencySandbox.Experiments.ThreadPools;

namespace ConcurrencySandbox.Tests.Hosting;

/// <summary>For tests that change the process-wide pool: puts its limits back after each test.</summary>
public abstract class RestoresThreadPoolLimits : IDisposable
{
    /// <summary>The limits before the test ran.</summary>
    protected ThreadPoolLimits Original { get; } = ThreadPoolLimits.Read();

    public void Dispose()
    {
        Assert.True(new ThreadPoolControl().Apply(ThreadPoolChange.To(Original)).Applied);
        GC.SuppressFinalize(this);
    }
}
