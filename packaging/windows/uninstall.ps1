#Requires -Version 5.1
#Requires -RunAsAdministrator
<#
.SYNOPSIS
Removes the scheduled-events-bridge service; keeps its settings and state.

.DESCRIPTION
Stops the service (a graceful stop: what is not yet delivered stays in the spool), removes it, its firewall rules and
the program directory. %ProgramData%\scheduled-events-bridge (bridge.properties, jvm.options, logs, the state and
the spool) stays, so a later install.ps1 carries on where this one stopped: no transition is repeated or lost. The Event
Log source stays too, so the entries already written still read well in the Event Viewer.

.PARAMETER InstallDir
Where install.ps1 put the program. Default: %ProgramFiles%\scheduled-events-bridge.

.PARAMETER DataDir
Settings, logs and state. Default: %ProgramData%\scheduled-events-bridge. Only deleted with -RemoveData.

.PARAMETER RemoveData
Also delete the settings, the logs and the state, with every message still waiting in the spool. Asks first (answer
Y); -Force or -Confirm:$false deletes without asking (e.g. in a script or the Custom Script Extension, where nobody
can answer and the question is an error).

.PARAMETER Force
With -RemoveData: do not ask.

.PARAMETER RemoveEventLogSource
Also unregister the Event Log source (entries already written then show "description cannot be found").
#>
# High: above the default $ConfirmPreference, so that the deletion of the data asks unless told not to.
[CmdletBinding(SupportsShouldProcess, ConfirmImpact = 'High')]
param(
    [string] $InstallDir = (Join-Path $env:ProgramFiles 'scheduled-events-bridge'),
    [string] $DataDir = (Join-Path $env:ProgramData 'scheduled-events-bridge'),
    [switch] $RemoveData,
    [switch] $RemoveEventLogSource,
    [switch] $Force
)

Set-StrictMode -Version 3.0
$ErrorActionPreference = 'Stop'

$ServiceName = 'scheduled-events-bridge'
$InstallDir = $InstallDir.TrimEnd('\')
$DataDir = $DataDir.TrimEnd('\')

$service = Get-Service -Name $ServiceName -ErrorAction SilentlyContinue
if ($service) {
    if ($service.Status -ne 'Stopped') {
        Write-Host "Stopping $ServiceName"
        Stop-Service -Name $ServiceName
        $service.WaitForStatus('Stopped', [TimeSpan]::FromSeconds(60))
    }
    & sc.exe delete $ServiceName
    if ($LASTEXITCODE -ne 0) { throw "sc.exe delete $ServiceName failed with exit code $LASTEXITCODE" }
    Write-Host "Service $ServiceName removed"
} else {
    Write-Host "No service $ServiceName installed"
}

Get-NetFirewallRule -Group $ServiceName -ErrorAction SilentlyContinue | Remove-NetFirewallRule

if ($RemoveEventLogSource) {
    $source = $ServiceName
    $properties = Join-Path $DataDir 'bridge.properties'
    if (Test-Path -LiteralPath $properties) {
        $line = Get-Content -LiteralPath $properties -Encoding UTF8 |
            Where-Object { $_ -match '^\s*bridge\.eventlog\.source\s*[=:]\s*(\S.*?)\s*$' } | Select-Object -Last 1
        if ($line -and $line -match '^\s*bridge\.eventlog\.source\s*[=:]\s*(\S.*?)\s*$') { $source = $Matches[1] }
    }
    if ([System.Diagnostics.EventLog]::SourceExists($source)) {
        [System.Diagnostics.EventLog]::DeleteEventSource($source)
        Write-Host "Event Log source '$source' unregistered"
    }
}

# The procrun settings of the service (its JVM options) live in the registry beside it.
$procrunKey = "HKLM:\SOFTWARE\Apache Software Foundation\Procrun 2.0\$ServiceName"
if (Test-Path -LiteralPath $procrunKey) { Remove-Item -LiteralPath $procrunKey -Recurse }

if (Test-Path -LiteralPath $InstallDir) {
    Remove-Item -LiteralPath $InstallDir -Recurse -Force
    Write-Host "Removed $InstallDir"
}

if ($RemoveData) {
    if ($Force -and -not $PSBoundParameters.ContainsKey('Confirm')) { $ConfirmPreference = 'None' }
    if ((Test-Path -LiteralPath $DataDir) -and
            $PSCmdlet.ShouldProcess($DataDir, 'Delete the settings, logs, state and every undelivered message')) {
        Remove-Item -LiteralPath $DataDir -Recurse -Force
        Write-Host "Removed $DataDir"
    } elseif (Test-Path -LiteralPath $DataDir) {
        Write-Host "Kept $DataDir (not confirmed)"
    }
} else {
    Write-Host "Kept $DataDir (settings and state): install.ps1 carries on from it; -RemoveData deletes it"
}
