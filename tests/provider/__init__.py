"""The payment-provider simulator, started as a real service and driven over HTTP."""
