using ConcurrencySandbox.Experiments.ThreadPools;
using ConcurrencySandbox.Validation;

namespace ConcurrencySandbox.Api.ThreadPools;

/// <summary>
/// Thread pool settings applied before the server starts serving. Section "ThreadPool"
/// (env: ThreadPool__MinWorkerThreads, ThreadPool__MinIoThreads, ThreadPool__MaxWorkerThreads, ThreadPool__MaxIoThreads).
/// Absent settings keep the runtime's defaults; ranges as declared in <see cref="ThreadPoolSettings"/>.
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

internal sealed class ThreadPoolStartupOptionsValidator(ThreadPoolControl control) : DeclaredSettingsValidator<ThreadPoolStartupOptions>(ThreadPoolStartupOptions.SectionName)
{
    protected override void Check(ThreadPoolStartupOptions options, SettingsReader reader)
    {
        var sent = options.ToChange();
        var values = new Dictionary<IntegerParameter, long?>
        {
            [ThreadPoolSettings.MinWorkerThreads] = sent.MinWorkerThreads,
            [ThreadPoolSettings.MinIoThreads] = sent.MinIoThreads,
            [ThreadPoolSettings.MaxWorkerThreads] = sent.MaxWorkerThreads,
            [ThreadPoolSettings.MaxIoThreads] = sent.MaxIoThreads,
        };
        ThreadPoolSettings.Check(setting => reader.Read(setting, values[setting]), control.Current, reader, reader.NameOf);
    }
}
