using ConcurrencySandbox.Experiments.ThreadPools;

namespace ConcurrencySandbox.Tests.ThreadPools;

public sealed class ThreadPoolChangeTests
{
    private static readonly ThreadPoolLimits Current = new(MinWorkerThreads: 2, MinIoThreads: 2, MaxWorkerThreads: 100, MaxIoThreads: 1000);

    [Fact]
    public void AnEmptyChangeHasNoProblems() => Assert.Empty(new ThreadPoolChange().Problems(Current, name => name));

    [Theory]
    [InlineData(0)]
    [InlineData(-3)]
    [InlineData(32768)]
    public void AValueOutsideOneTo32767IsNamedWithTheRange(int value)
    {
        var problems = new ThreadPoolChange(MaxIoThreads: value).Problems(Current, name => name);

        var problem = Assert.Single(problems);
        Assert.Equal(nameof(ThreadPoolChange.MaxIoThreads), problem.Key);
        Assert.Contains("from 1 to 32767", problem.Value);
    }

    [Fact]
    public void AMinimumAboveTheResultingMaximumIsAProblem()
    {
        var problems = new ThreadPoolChange(MinWorkerThreads: 101).Problems(Current, name => name);

        Assert.Contains("at most 'MaxWorkerThreads' (100)", Assert.Single(problems).Value);
    }

    [Fact]
    public void AMaximumBelowTheCurrentMinimumIsAProblemForIo()
    {
        var problems = new ThreadPoolChange(MaxIoThreads: 1).Problems(Current, name => name);

        Assert.Equal(nameof(ThreadPoolChange.MinIoThreads), Assert.Single(problems).Key);
    }

    [Fact]
    public void UnchangedValuesComeFromTheCurrentLimits() =>
        Assert.Equal(Current with { MaxWorkerThreads = 50 }, new ThreadPoolChange(MaxWorkerThreads: 50).AppliedTo(Current));
}
