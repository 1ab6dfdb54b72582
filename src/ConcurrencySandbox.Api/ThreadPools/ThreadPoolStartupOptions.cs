using ConcurrencySandbox.Experiments.ThreadPools;
using Microsoft.Extensions.Options;

namespace ConcurrencySandbox.Api.ThreadPools;

/// <summary>
/// Thread pool settings applied before the server starts serving. Section "ThreadPool"
/// (env: ThreadPool__MinWorkerThreads, ThreadPool__MinIoThreads, ThreadPool__MaxWorkerThreads, ThreadPool__MaxIoThreads).
/// Absent settings keep the runtime's defaults.
/// </summary>
public sealed class ThreadPoolStartupOptions
{
    public const string SectionName = "ThreadPool";

    public long? MinWorkerThreads { get; set; }

    public long? MinIoThreads { get; set; }

    public long? MaxWorkerThreads { get; set; }

    public long? MaxIoThreads { get; set; }

    public ThreadPoolChange ToChange() => new(MinWorkerThreads, MinIoThreads, MaxWorkerThreads, MaxIoThreads);
}

internal sealed class ThreadPoolStartupOptionsValidator(ThreadPoolControl control) : IValidateOptions<ThreadPoolStartupOptions>
{
    public ValidateOptionsResult Validate(string? name, ThreadPoolStartupOptions options)
    {
        var problems = options.ToChange().Problems(control.Current, setting => SettingName.Of(ThreadPoolStartupOptions.SectionName, setting));
        return problems.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(problems.Values);
    }
}
