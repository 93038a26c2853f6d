#Requires -Version 5.1
<#
.SYNOPSIS
Example recover command for scheduled-events-bridge: bring this VM's application back after maintenance.

.DESCRIPTION
The agent runs it once per event when the event ends (Completed, or Cancelled), never before the event's prepare
command has ended, with the same environment variables and standard input as prepare.ps1 (see there). After a Reboot
the agent starts with Windows and runs it then. It must be idempotent: starting a running service does nothing.

In bridge.properties:

    bridge.action.recover.command=& "$env:ProgramData/scheduled-events-bridge/actions/recover.ps1" -StartService MyApp

.PARAMETER StartService
The Windows services to start again, in this order (prepare.ps1 -StopService stopped them; see there for the right to
do so): a service before the services that depend on it.
#>
[CmdletBinding()]
param(
    [string[]] $StartService
)

Set-StrictMode -Version 3.0
$ErrorActionPreference = 'Stop'

$eventId = $env:SEB_EVENT_ID
Write-Output "Recovering after $env:SEB_TRANSITION $env:SEB_EVENT_TYPE $eventId"
foreach ($name in @($StartService | Where-Object { $_ })) {
    $service = Get-Service -Name $name
    if ($service.Status -ne 'Running') {
        Start-Service -Name $name
        $service.WaitForStatus('Running', [TimeSpan]::FromSeconds(120))
    }
    Write-Output "Service $name running"
}
$marker = Join-Path $env:ProgramData "scheduled-events-bridge\tmp\prepared\$eventId.done"
if ($eventId -match '^[A-Za-z0-9-]{1,100}$' -and (Test-Path -LiteralPath $marker)) {
    Remove-Item -LiteralPath $marker
}
exit 0
