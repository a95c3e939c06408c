#compdef vmem

_vmem_completion() {
  eval $(env _TYPER_COMPLETE_ARGS="${words[1,$CURRENT]}" _VMEM_COMPLETE=complete_zsh vmem)
}

compdef _vmem_completion vmem
