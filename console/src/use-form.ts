/** A dialog form's state: its fields, the setter each input calls, and the error its submission met. */
import { useState } from 'preact/hooks';

export function useForm<S extends object>(initial: S, send: (state: S) => Promise<void>) {
  const [state, setState] = useState(initial);
  const [error, setError] = useState('');
  const field = (name: keyof S) => (e: Event) =>
    setState({ ...state, [name]: (e.target as HTMLInputElement).value });
  /** Sends the form; what it throws (a field that cannot be read, the API's refusal) is shown. */
  const submit = async (e: Event) => {
    e.preventDefault();
    try {
      await send(state);
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return { state, field, error, submit };
}
