namespace ConcurrencySandbox.Testing;

/// <summary>A fact that reads Linux's /proc (thread names, sockets, processes), and says so when skipped elsewhere.</summary>
internal sealed class FactOnLinuxAttribute : FactAttribute
{
    public FactOnLinuxAttribute()
    {
        if (!OperatingSystem.IsLinux())
        {
            Skip = "reads /proc, which only Linux has";
        }
    }
}
