using System.Text;
using ConcurrencySandbox.Api.ThreadPools;
using ConcurrencySandbox.Contracts.ThreadPools;
using ConcurrencySandbox.Experiments.ThreadPools;
using ConcurrencySandbox.Validation;

namespace ConcurrencySandbox.Tests.ThreadPools;

public sealed class ThreadPoolSettingsTests
{
    private static readonly ThreadPoolLimits Current = new(MinWorkerThreads: 2, MinIoThreads: 2, MaxWorkerThreads: 100, MaxIoThreads: 1000);

    [Fact]
    public void AnEmptyObjectIsAValidChangeThatChangesNothing()
    {
        var (reader, change) = Check("{}");

        Assert.True(reader.IsValid);
        Assert.Equal(Current, change.AppliedTo(Current));
    }

    [Theory]
    [InlineData("""{"maxWorkerThreads":1}""", "maxWorkerThreads")]
    [InlineData("""{"maxIoThreads":1}""", "maxIoThreads")]
    public void AMaximumBelowTheProcessorCountFloorIsRefusedWithTheFloor(string body, string setting)
    {
        var (reader, _) = Check(body);

        Assert.Equal($"'{setting}' must be an integer from {ThreadPoolLimits.SafeMaxThreadsFloor} to 32767; got '1'.", Assert.Single(reader.Messages));
    }

    [Fact]
    public void AMinimumAboveTheResultingMaximumIsAProblem()
    {
        var (reader, _) = Check("""{"minWorkerThreads":101}""");

        Assert.Contains("at most 'maxWorkerThreads' (100)", Assert.Single(reader.Messages), StringComparison.Ordinal);
    }

    [Fact]
    public void AMaximumBelowTheCurrentMinimumIsNamedOnTheMinimum()
    {
        var (reader, _) = Check("""{"minIoThreads":50,"maxIoThreads":40}""");

        Assert.True(reader.Has("minIoThreads"));
        Assert.Contains("'minIoThreads' (50) must be at most 'maxIoThreads' (40)", Assert.Single(reader.Messages), StringComparison.Ordinal);
    }

    [Fact]
    public void UnchangedValuesComeFromTheCurrentLimits()
    {
        var (_, change) = Check("""{"maxWorkerThreads":50}""");

        Assert.Equal(Current with { MaxWorkerThreads = 50 }, change.AppliedTo(Current));
    }

    [Fact]
    public void StartUpSettingsAreNamedInBothForms()
    {
        var reader = new SettingsReader(ThreadPoolStartupOptions.SectionName);

        reader.Read(ThreadPoolSettings.MaxWorkerThreads, 1);

        Assert.StartsWith("ThreadPool:MaxWorkerThreads (env ThreadPool__MaxWorkerThreads) must be an integer from", Assert.Single(reader.Messages), StringComparison.Ordinal);
    }

    private static (JsonBodyReader Reader, ThreadPoolChange Change) Check(string body)
    {
        var reader = new JsonBodyReader(Encoding.UTF8.GetBytes(body), ThreadPoolSettings.All);
        var change = ThreadPoolSettings.Check(reader.Read, Current, reader, setting => setting.Name);
        return (reader, change);
    }
}
