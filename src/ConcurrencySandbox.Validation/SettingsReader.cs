using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;

namespace ConcurrencySandbox.Validation;

/// <summary>
/// Checks start-up settings of one configuration section against their declarations; each message names the
/// setting in both forms, for example "ThreadPool:MaxWorkerThreads (env ThreadPool__MaxWorkerThreads)".
/// </summary>
public sealed class SettingsReader(string section) : ValidationErrors
{
    /// <summary>The setting as a user writes it in configuration and in the environment.</summary>
    public string NameOf(QueryParameter setting) => SettingName.Of(section, char.ToUpperInvariant(setting.Name[0]) + setting.Name[1..]);

    /// <summary>Returns the value when it is absent or allowed; records the problem otherwise.</summary>
    public long? Read(IntegerParameter setting, long? value)
    {
        if (value is { } given && !setting.Allows(given))
        {
            Fail(NameOf(setting), $"{NameOf(setting)} must be {setting.AllowedRange}; it is {given}.");
        }

        return value;
    }

    /// <summary>Reads settings whose only rule is to be positive (caps, sizes), declared here by name.</summary>
    public void ReadPositive(params (string Name, long Value)[] settings)
    {
        foreach (var (name, value) in settings)
        {
            Read(new IntegerParameter(name, 1, long.MaxValue, null, "A positive whole number."), value);
        }
    }
}

/// <summary>Validates an options class at start-up through its declared settings, so a bad value stops the app with a message that says what to fix.</summary>
public abstract class DeclaredSettingsValidator<TOptions>(string section) : IValidateOptions<TOptions>
    where TOptions : class
{
    public ValidateOptionsResult Validate(string? name, TOptions options)
    {
        var reader = new SettingsReader(section);
        Check(options, reader);
        return reader.IsValid ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(reader.Messages);
    }

    /// <summary>Reads each setting through the reader; rules that span settings call <see cref="ValidationErrors.Fail"/>.</summary>
    protected abstract void Check(TOptions options, SettingsReader reader);
}

public static class DeclaredSettingsRegistration
{
    /// <summary>Binds <typeparamref name="TOptions"/> to its section and checks it at start-up through its declared settings.</summary>
    public static IServiceCollection AddDeclaredSettings<TOptions, TValidator>(this IServiceCollection services, IConfiguration configuration, string section)
        where TOptions : class
        where TValidator : DeclaredSettingsValidator<TOptions>
    {
        services.AddOptions<TOptions>().Bind(configuration.GetSection(section)).ValidateOnStart();
        services.AddSingleton<IValidateOptions<TOptions>, TValidator>();
        return services;
    }
}
