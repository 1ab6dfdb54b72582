using System.Net;
using ConcurrencySandbox.Validation;

namespace ConcurrencySandbox.Api.Control;

/// <summary>
/// The control listener. Section "Control" (env: Control__Port, Control__Host, Control__ConnectionThreads,
/// Control__ShutdownSeconds). Port 5081 by default, falling back to a free port (announced) when 5081 is taken
/// and no port was configured; 0 asks for a free port. Loopback only unless Host says otherwise.
/// </summary>
public sealed class ControlOptions
{
    public const string SectionName = "Control";

    public const int DefaultPort = 5081;

    public static readonly IntegerParameter PortSetting = new("port", 0, IPEndPoint.MaxPort, DefaultPort, "The control listener's TCP port; 0 picks a free one.");

    public static readonly IntegerParameter ConnectionThreadsSetting = new("connectionThreads", 1, 64, 4, "Dedicated threads that accept and answer control requests, one connection each at a time.");

    public static readonly IntegerParameter ShutdownSecondsSetting = new("shutdownSeconds", 1, 60, 5, "After SIGTERM/SIGINT, how long the host may take to stop before the watchdog abandons in-flight requests and exits.");

    /// <summary>Null: the default port, or a free one when the default is taken.</summary>
    public long? Port { get; set; }

    /// <summary>The address the control listener binds to (an IP address).</summary>
    public string Host { get; set; } = IPAddress.Loopback.ToString();

    public long ConnectionThreads { get; set; } = ConnectionThreadsSetting.Default!.Value;

    public long ShutdownSeconds { get; set; } = ShutdownSecondsSetting.Default!.Value;
}

internal sealed class ControlOptionsValidator() : DeclaredSettingsValidator<ControlOptions>(ControlOptions.SectionName)
{
    protected override void Check(ControlOptions options, SettingsReader reader)
    {
        reader.Read(ControlOptions.PortSetting, options.Port);
        reader.Read(ControlOptions.ConnectionThreadsSetting, options.ConnectionThreads);
        reader.Read(ControlOptions.ShutdownSecondsSetting, options.ShutdownSeconds);
        if (!IPAddress.TryParse(options.Host, out _))
        {
            reader.Fail("host", $"{SettingName.Of(ControlOptions.SectionName, nameof(options.Host))} must be an IP address such as 127.0.0.1 or 0.0.0.0; it is '{options.Host}'.");
        }
    }
}
